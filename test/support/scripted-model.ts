import { once } from 'node:events'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'

/** One scripted reply: tool calls `[id, tool, arguments]` and/or a text. */
export interface ScriptedReply {
  content?: string | null
  calls?: Array<[string, string, unknown]>
}

/** A chat message as the model received it. */
export interface ReceivedMessage {
  role: string
  content?: string | null
  tool_call_id?: string
}

/**
 * An OpenAI-compatible chat endpoint on 127.0.0.1 that plays `script`: the reply to a request is
 * chosen by how many assistant messages it already holds, so a resumed conversation gets the
 * same reply for the same turn.
 */
export interface ScriptedModel {
  /** For `llm.baseUrl`: `http://127.0.0.1:<port>/v1`. */
  baseUrl: string
  /** The messages of every request, in order. */
  requests: ReceivedMessage[][]
  /** The replies, by turn; a turn past the end answers "out of script". */
  script: ScriptedReply[]
  close(): Promise<void>
}

/** Starts a {@link ScriptedModel} on a free port. */
export async function startScriptedModel(script: ScriptedReply[] = []): Promise<ScriptedModel> {
  const model: ScriptedModel = {
    baseUrl: '',
    requests: [],
    script,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections()
        server.close((err) => (err ? reject(err) : resolve()))
      }),
  }
  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const { messages } = JSON.parse(Buffer.concat(chunks).toString()) as {
        messages: ReceivedMessage[]
      }
      model.requests.push(messages)
      const turn = messages.filter((m) => m.role === 'assistant').length
      const reply = model.script[turn] ?? { content: 'out of script' }
      const toolCalls = reply.calls?.map(([id, name, args]) => ({
        id,
        type: 'function',
        function: { name, arguments: typeof args === 'string' ? args : JSON.stringify(args) },
      }))
      res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          choices: [
            {
              index: 0,
              message: {
                role: 'assistant',
                content: reply.content ?? null,
                ...(toolCalls ? { tool_calls: toolCalls } : {}),
              },
              finish_reason: toolCalls ? 'tool_calls' : 'stop',
            },
          ],
          usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
        }),
      )
    })
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  model.baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`
  return model
}
