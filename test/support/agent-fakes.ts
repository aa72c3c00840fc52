import { once } from 'node:events'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'

// Local stand-ins for what an agent step talks to: an OpenAI-compatible model that plays a
// script, and an http service that honours `Idempotency-Key` as a payments or ticketing API
// does. Both count what they really did, and both can hold a request open, so a test can kill a
// worker at an exact point of the loop without sleeping.

/** A request a fake is holding open, taken by `holdNext`. */
export interface HeldRequest<T> {
  /** Resolves with the request once it arrived and is held. */
  arrived: Promise<T>
  /**
   * Resolves when the caller closed the connection before an answer (its worker died); the
   * request is then never answered.
   */
  abandoned: Promise<void>
  /** Lets the request go on as if it had not been held. */
  release(): void
}

interface Hold<T> {
  match: (request: T) => boolean
  arrived: (request: T) => void
  abandoned: () => void
  held: HeldRequest<T>
  go?: () => void
  released: boolean
}

/** Holds the first request matching each `add`, once. */
class Holds<T> {
  private readonly waiting: Array<Hold<T>> = []

  add(match: (request: T) => boolean): HeldRequest<T> {
    let arrived!: (request: T) => void
    let abandoned!: () => void
    const hold: Hold<T> = {
      match,
      arrived: (r) => arrived(r),
      abandoned: () => abandoned(),
      released: false,
      held: {
        arrived: new Promise<T>((resolve) => (arrived = resolve)),
        abandoned: new Promise<void>((resolve) => (abandoned = resolve)),
        release: () => {
          hold.released = true
          hold.go?.()
        },
      },
    }
    this.waiting.push(hold)
    return hold.held
  }

  /**
   * Runs `go` now, or, when a hold matches `request`, once that hold is released; a connection
   * closed while held is reported and `go` never runs.
   */
  gate(request: T, res: ServerResponse, go: () => void): void {
    const i = this.waiting.findIndex((h) => h.match(request))
    if (i < 0) {
      go()
      return
    }
    const [hold] = this.waiting.splice(i, 1) as [Hold<T>]
    hold.go = () => {
      if (!res.destroyed) go()
    }
    res.on('close', () => {
      if (!res.writableEnded) hold.abandoned()
    })
    hold.arrived(request)
    if (hold.released) hold.go()
  }
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = []
  for await (const chunk of req) chunks.push(chunk as Buffer)
  const text = Buffer.concat(chunks).toString('utf8')
  return text === '' ? undefined : (JSON.parse(text) as unknown)
}

function send(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body))
}

async function listen(server: Server): Promise<string> {
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const address = server.address()
  if (address === null || typeof address === 'string') throw new Error('no address')
  return `127.0.0.1:${address.port}`
}

async function close(server: Server): Promise<void> {
  server.closeAllConnections()
  await new Promise<void>((resolve) => server.close(() => resolve()))
}

/** A chat message as the model gets it. */
export interface ChatMessage {
  role: string
  content?: string | null
  tool_call_id?: string
}

/** One chat completion request, as the script sees it. */
export interface ModelRequest {
  /** The first user message: what tells one run's conversation from another's. */
  conversation: string
  /** How many assistant messages the request holds: 0 for the first turn. */
  turn: number
  messages: ChatMessage[]
}

/** What the script answers: text, tool calls, or both. */
export interface ScriptedReply {
  content: string | null
  toolCalls?: Array<{ id: string; name: string; arguments: object }>
}

/** The scripted model; see `startScriptedModel`. */
export interface ScriptedModel {
  /** The base URL, for `WEAVE_LLM_BASE_URL`. */
  url: string
  /**
   * The replies of one conversation, by turn: a reply counts once the fake wrote it in full to
   * a connection that was still open. A request held at a kill point whose worker died is never
   * answered, so it does not count (see `abandoned`).
   */
  replies(conversation: string): number[]
  /** The requests of one conversation, by turn, whose caller went away unanswered. */
  abandoned(conversation: string): number[]
  /** Holds the next request that `match` accepts. */
  holdNext(match: (request: ModelRequest) => boolean): HeldRequest<ModelRequest>
  close(): Promise<void>
}

/**
 * Starts an OpenAI-compatible model (`POST /v1/chat/completions`) on a free port whose reply is
 * `script(request)`. The turn is read from the request (its assistant messages), as a real model
 * answers whatever conversation it is sent, so a re-asked turn gets the same reply.
 */
export async function startScriptedModel(
  script: (request: ModelRequest) => ScriptedReply,
): Promise<ScriptedModel> {
  const replies = new Map<string, number[]>()
  const abandoned = new Map<string, number[]>()
  const holds = new Holds<ModelRequest>()
  const bump = (counts: Map<string, number[]>, request: ModelRequest) => {
    const list = counts.get(request.conversation) ?? []
    list[request.turn] = (list[request.turn] ?? 0) + 1
    counts.set(
      request.conversation,
      Array.from(list, (n) => n ?? 0),
    )
  }

  const server = createServer((req, res) => {
    readJson(req).then(
      (body) => {
        const messages = (body as { messages?: ChatMessage[] } | undefined)?.messages
        if (req.url !== '/v1/chat/completions' || !Array.isArray(messages)) {
          send(res, 404, { error: { message: 'not a chat completion request' } })
          return
        }
        const request: ModelRequest = {
          conversation: messages.find((m) => m.role === 'user')?.content ?? '',
          turn: messages.filter((m) => m.role === 'assistant').length,
          messages,
        }
        res.on('close', () => {
          if (!res.writableFinished) bump(abandoned, request)
        })
        res.on('finish', () => bump(replies, request))
        holds.gate(request, res, () => {
          const reply = script(request)
          const toolCalls = reply.toolCalls?.map((c) => ({
            id: c.id,
            type: 'function',
            function: { name: c.name, arguments: JSON.stringify(c.arguments) },
          }))
          send(res, 200, {
            id: `chatcmpl-${request.turn}`,
            object: 'chat.completion',
            model: 'scripted',
            choices: [
              {
                index: 0,
                message: {
                  role: 'assistant',
                  content: reply.content,
                  ...(toolCalls ? { tool_calls: toolCalls } : {}),
                },
                finish_reason: toolCalls ? 'tool_calls' : 'stop',
              },
            ],
            usage: { prompt_tokens: 10 * messages.length, completion_tokens: 20 },
          })
        })
      },
      () => send(res, 400, { error: { message: 'the body is not JSON' } }),
    )
  })
  const host = await listen(server)
  return {
    url: `http://${host}/v1`,
    replies: (conversation) => replies.get(conversation) ?? [],
    abandoned: (conversation) => abandoned.get(conversation) ?? [],
    holdNext: (match) => holds.add(match),
    close: () => close(server),
  }
}

/** One request to the idempotent service. */
export interface ServiceRequest {
  key: string
  body: unknown
}

/** The idempotent service; see `startIdempotentService`. */
export interface IdempotentService {
  /** `http://127.0.0.1:<port>` */
  url: string
  /** `127.0.0.1:<port>`, an entry for `WEAVE_HTTP_ALLOW`. */
  host: string
  /** How many requests carried `key`, executed or not. */
  requests(key: string): number
  /** How often each key's operation was carried out: once, for an idempotent caller. */
  executions(): Record<string, number>
  /**
   * Holds the next new request that `match` accepts: `before-execution` holds it unexecuted (a
   * caller that goes away leaves nothing done); `after-execution` carries it out and holds the
   * answer (a caller that goes away loses it, as when a worker dies mid-call).
   */
  holdNext(
    phase: 'before-execution' | 'after-execution',
    match: (request: ServiceRequest) => boolean,
  ): HeldRequest<ServiceRequest>
  close(): Promise<void>
}

/**
 * Starts a service on a free port whose `POST` creates a ticket `T-<n>` (201) for a JSON body,
 * carried out once per `Idempotency-Key`: a request repeating a key is answered from memory
 * without being carried out again, as a real idempotent API does; one repeating a key with
 * another body gets 422; one without a key gets 400.
 */
export async function startIdempotentService(): Promise<IdempotentService> {
  const requests = new Map<string, number>()
  const executions = new Map<string, number>()
  const answers = new Map<string, { body: string; answer: unknown }>()
  const before = new Holds<ServiceRequest>()
  const after = new Holds<ServiceRequest>()
  let tickets = 0

  const execute = (request: ServiceRequest) => {
    executions.set(request.key, (executions.get(request.key) ?? 0) + 1)
    const answer = { ticketId: `T-${++tickets}`, request: request.body }
    answers.set(request.key, { body: JSON.stringify(request.body), answer })
    return answer
  }

  const server = createServer((req, res) => {
    readJson(req).then(
      (body) => {
        const header = req.headers['idempotency-key']
        const key = Array.isArray(header) ? header[0] : header
        if (req.method !== 'POST' || key === undefined || key === '') {
          send(res, 400, { error: 'a POST with an Idempotency-Key is expected' })
          return
        }
        requests.set(key, (requests.get(key) ?? 0) + 1)
        const request: ServiceRequest = { key, body }
        const known = answers.get(key)
        if (known !== undefined) {
          if (known.body !== JSON.stringify(body)) {
            send(res, 422, { error: 'the key was used with another body' })
          } else send(res, 201, known.answer)
          return
        }
        before.gate(request, res, () => {
          const answer = execute(request)
          after.gate(request, res, () => send(res, 201, answer))
        })
      },
      () => send(res, 400, { error: 'the body is not JSON' }),
    )
  })
  const host = await listen(server)
  return {
    url: `http://${host}`,
    host,
    requests: (key) => requests.get(key) ?? 0,
    executions: () => Object.fromEntries(executions),
    holdNext: (phase, match) => (phase === 'before-execution' ? before : after).add(match),
    close: () => close(server),
  }
}
