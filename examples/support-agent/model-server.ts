// A scripted stand-in for an OpenAI-compatible model (POST /v1/chat/completions), so the
// support-agent example runs without network or API key. It plays one fixed conversation about
// order A-1001 of ada: look the order up; refund 250 and close the account; answer with what
// the tool results say. The reply is chosen by how many assistant messages the request already
// holds, so a resumed run that asks again about a turn gets the same reply.
import { createServer, type ServerResponse } from 'node:http'

// The port is the one argument (`npm run example:model -- 4021`), for when 4020 is taken.
const port = Number(process.argv[2] ?? 4020)

const ORDER_ID = 'A-1001'
const CUSTOMER = 'ada'
const REFUND_AMOUNT = 250

interface ToolCall {
  id: string
  type: 'function'
  function: { name: string; arguments: string }
}

interface Message {
  role: string
  content?: string | null
  tool_call_id?: string
}

interface Reply {
  content: string | null
  tool_calls?: ToolCall[]
}

function call(id: string, name: string, args: object): ToolCall {
  return { id, type: 'function', function: { name, arguments: JSON.stringify(args) } }
}

/** What the tool answered to the call `callId`, as the request carries it back. */
function resultOf(messages: Message[], callId: string): string {
  const m = messages.find((x) => x.role === 'tool' && x.tool_call_id === callId)
  return typeof m?.content === 'string' ? m.content : ''
}

/** The final answer: what happened to the refund and to the account, read from the results. */
function finalAnswer(messages: Message[]): string {
  const refund = resultOf(messages, 'call_refund')
  const close = resultOf(messages, 'call_close')
  let refunded: { refundId?: unknown } | undefined
  try {
    refunded = JSON.parse(refund) as { refundId?: unknown }
  } catch {
    refunded = undefined
  }
  const refundPart =
    typeof refunded?.refundId === 'string'
      ? `I refunded ${REFUND_AMOUNT} for order ${ORDER_ID} (refund ${refunded.refundId}).`
      : `I could not refund order ${ORDER_ID}: ${refund}`
  const closePart = close.includes('refused by policy')
    ? 'Closing your account is not something I may do; a colleague will contact you about it.'
    : `About closing your account: ${close}`
  return `${refundPart} ${closePart}`
}

/** The reply to the turn after `turn` assistant messages. */
function replyTo(turn: number, messages: Message[]): Reply {
  switch (turn) {
    case 0:
      return {
        content: 'Let me look the order up.',
        tool_calls: [call('call_lookup', 'lookup_order', { orderId: ORDER_ID })],
      }
    case 1:
      return {
        content: `The order arrived damaged: I will refund the ${REFUND_AMOUNT} paid and close the account as asked.`,
        tool_calls: [
          call('call_refund', 'refund', { orderId: ORDER_ID, amount: REFUND_AMOUNT }),
          call('call_close', 'close_account', { customer: CUSTOMER }),
        ],
      }
    case 2:
      return { content: finalAnswer(messages) }
    default:
      return { content: 'This conversation is over.' }
  }
}

/** One line describing a reply: the calls it makes, or its text. */
function describe(reply: Reply): string {
  if (reply.tool_calls === undefined) return `answer ${JSON.stringify(reply.content)}`
  return reply.tool_calls.map((c) => `${c.function.name} ${c.function.arguments}`).join(', ')
}

function send(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body))
}

createServer((req, res) => {
  let text = ''
  req.on('data', (chunk: Buffer) => (text += chunk.toString()))
  req.on('end', () => {
    if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
      send(res, 404, { error: { message: `no ${req.method} ${req.url} here` } })
      return
    }
    let messages: Message[]
    try {
      messages = (JSON.parse(text) as { messages: Message[] }).messages
      if (!Array.isArray(messages)) throw new TypeError('messages is not a list')
    } catch (err) {
      send(res, 400, { error: { message: `not a chat request: ${(err as Error).message}` } })
      return
    }
    const turn = messages.filter((m) => m.role === 'assistant').length
    const reply = replyTo(turn, messages)
    console.log(`model turn ${turn}: ${describe(reply)}`)
    const promptTokens = 10 * messages.length
    send(res, 200, {
      id: `chatcmpl-scripted-${turn}`,
      object: 'chat.completion',
      model: 'scripted',
      choices: [
        {
          index: 0,
          message: { role: 'assistant', ...reply },
          finish_reason: reply.tool_calls ? 'tool_calls' : 'stop',
        },
      ],
      usage: {
        prompt_tokens: promptTokens,
        completion_tokens: 20,
        total_tokens: promptTokens + 20,
      },
    })
  })
}).listen(port, '127.0.0.1', () =>
  console.log(`scripted model on http://127.0.0.1:${port}/v1 (WEAVE_LLM_BASE_URL)`),
)
