import { startScriptedModel as startModel, type ChatMessage } from './agent-fakes.js'

/** One scripted reply: tool calls `[id, tool, arguments]` and/or a text. */
export interface ScriptedReply {
  content?: string | null
  calls?: Array<[string, string, object]>
}

/**
 * The scripted model of agent-fakes.ts played from a list of replies by turn: the reply to a
 * request is chosen by how many assistant messages it already holds, so a resumed conversation
 * gets the same reply for the same turn. `script` may be replaced between runs.
 */
export interface ScriptedModel {
  /** For `llm.baseUrl`: `http://127.0.0.1:<port>/v1`. */
  baseUrl: string
  /** The messages of every request, in order. */
  requests: ChatMessage[][]
  /** The replies, by turn; a turn past the end answers "out of script". */
  script: ScriptedReply[]
  close(): Promise<void>
}

/** Starts a {@link ScriptedModel} on a free port. */
export async function startScriptedModel(script: ScriptedReply[] = []): Promise<ScriptedModel> {
  const requests: ChatMessage[][] = []
  const model = await startModel((request) => {
    requests.push(request.messages)
    const reply = scripted.script[request.turn] ?? { content: 'out of script' }
    const toolCalls = reply.calls?.map(([id, name, args]) => ({ id, name, arguments: args }))
    return { content: reply.content ?? null, ...(toolCalls ? { toolCalls } : {}) }
  })
  const scripted: ScriptedModel = {
    baseUrl: model.url,
    requests,
    script,
    close: () => model.close(),
  }
  return scripted
}
