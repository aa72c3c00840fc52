import { once } from 'node:events'
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http'

/** One request the server received. */
export interface RecordedRequest {
  method: string
  path: string
  headers: IncomingHttpHeaders
  /** The `Idempotency-Key` header, when sent. */
  idempotencyKey: string | undefined
  /** The body parsed as JSON, or the raw text when it is not JSON (undefined when empty). */
  body: unknown
  /** When the request's body had been read (ms since the epoch). */
  at: number
}

/** How the server answers a request; any field left out keeps the default. */
export interface Reply {
  status?: number
  body?: unknown
  delayMs?: number
  /** Keep the answer until `release(path)`: the test decides when the call ends. */
  hold?: boolean
}

/** A local HTTP server that records every request and answers as told. */
export interface RecordingServer {
  /** `http://127.0.0.1:<port>` */
  url: string
  /** `127.0.0.1:<port>`, an entry for `WEAVE_HTTP_ALLOW`. */
  host: string
  requests: RecordedRequest[]
  /** Requests whose path is `path`. */
  requestsTo(path: string): RecordedRequest[]
  /** Answers every later request this way (default: 200 `{ ok: true, path, n }`). */
  setDefault(reply: Reply): void
  /** Answers requests to `path` this way, before the default. */
  on(path: string, reply: Reply): void
  /** Answers the held requests to `path` (see `Reply.hold`). */
  release(path: string): void
  /** Called with each request once it is recorded, before it is answered. */
  onRequest(listener: ((request: RecordedRequest) => void) | undefined): void
  close(): Promise<void>
}

/** Starts a {@link RecordingServer} on 127.0.0.1 and a free port. */
export async function startRecordingServer(): Promise<RecordingServer> {
  const requests: RecordedRequest[] = []
  const byPath = new Map<string, Reply>()
  let fallback: Reply = {}
  let listener: ((request: RecordedRequest) => void) | undefined
  const pending = new Set<ServerResponse>()
  const held = new Map<string, Array<() => void>>()

  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8')
      const path = new URL(req.url ?? '/', 'http://localhost').pathname
      const key = req.headers['idempotency-key']
      const recorded: RecordedRequest = {
        method: req.method ?? 'GET',
        path,
        headers: req.headers,
        idempotencyKey: Array.isArray(key) ? key[0] : key,
        body: parseBody(text),
        at: Date.now(),
      }
      requests.push(recorded)
      listener?.(recorded)
      const reply = { ...fallback, ...byPath.get(path) }
      const status = reply.status ?? 200
      const body = reply.body ?? { ok: true, path, n: requests.length }
      const answer = () => {
        pending.delete(res)
        if (res.destroyed) return
        res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body))
      }
      pending.add(res)
      if (reply.hold) held.set(path, [...(held.get(path) ?? []), answer])
      else if (reply.delayMs) setTimeout(answer, reply.delayMs).unref()
      else answer()
    })
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const address = server.address()
  if (address === null || typeof address === 'string') throw new Error('no address')
  const host = `127.0.0.1:${address.port}`

  return {
    url: `http://${host}`,
    host,
    requests,
    requestsTo: (path) => requests.filter((r) => r.path === path),
    setDefault(reply) {
      fallback = reply
    },
    on(path, reply) {
      byPath.set(path, reply)
    },
    release(path) {
      const answers = held.get(path) ?? []
      held.delete(path)
      for (const answer of answers) answer()
    },
    onRequest(fn) {
      listener = fn
    },
    async close() {
      for (const res of pending) res.destroy()
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}

function parseBody(text: string): unknown {
  if (text === '') return undefined
  try {
    return JSON.parse(text) as unknown
  } catch {
    return text
  }
}
