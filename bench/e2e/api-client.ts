/** The fields of a run (`GET /v1/runs/{id}`) the benchmark reads. */
export interface RunView {
  id: string
  status: 'queued' | 'running' | 'waiting' | 'completed' | 'failed' | 'cancelled'
  state: Record<string, unknown>
  error: unknown
  pendingApprovals: string[]
  createdAt: string
  finishedAt: string | null
}

/** The fields of an approval (`POST /v1/approvals/{id}/decision`) the benchmark reads. */
export interface ApprovalView {
  id: string
  status: string
  settledAt: string | null
}

/** A run event (`GET /v1/runs/{id}/events?format=json`). */
export interface RunEvent {
  id: number
  type: string
  at: string
}

/** A JSON client of one Weave, calling as one token's subject. */
export interface ApiClient {
  /**
   * Sends a request and parses the JSON answer.
   * @throws Error when the status is not `expect`, with the problem's body
   */
  call<T>(method: string, path: string, expect: number, body?: unknown): Promise<T>
}

/** A client of the Weave at `baseUrl` sending `token` as the bearer token. */
export function apiClient(baseUrl: string, token: string): ApiClient {
  return {
    async call<T>(method: string, path: string, expect: number, body?: unknown): Promise<T> {
      const headers: Record<string, string> = { authorization: `Bearer ${token}` }
      if (body !== undefined) headers['content-type'] = 'application/json'
      const res = await fetch(`${baseUrl}${path}`, {
        method,
        headers,
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      })
      const text = await res.text()
      if (res.status !== expect) {
        throw new Error(`${method} ${path}: ${res.status}, expected ${expect}: ${text}`)
      }
      return JSON.parse(text) as T
    },
  }
}

const TERMINAL = new Set(['completed', 'failed', 'cancelled'])

/** A run that reached the awaited status, and how many GETs it took to see it. */
export interface Awaited {
  run: RunView
  polls: number
  /** When the status was seen, `performance.now()` milliseconds. */
  seenAt: number
}

/**
 * Polls `GET /v1/runs/{id}` every `pollMs` until `done(run)` holds.
 * @throws Error when the run ends otherwise, a Weave process dies, or 60 s pass
 */
export async function pollRun(
  api: ApiClient,
  id: string,
  done: (run: RunView) => boolean,
  o: { pollMs: number; assertRunning: () => void },
): Promise<Awaited> {
  const deadline = performance.now() + 60_000
  for (let polls = 1; ; polls++) {
    const run = await api.call<RunView>('GET', `/v1/runs/${id}`, 200)
    if (done(run)) return { run, polls, seenAt: performance.now() }
    if (TERMINAL.has(run.status)) {
      throw new Error(`run ${id} ended ${run.status}: ${JSON.stringify(run.error)}`)
    }
    o.assertRunning()
    if (performance.now() > deadline) throw new Error(`run ${id} still ${run.status} after 60 s`)
    await new Promise((r) => setTimeout(r, o.pollMs))
  }
}

/** A run's events, oldest first. */
export async function runEvents(api: ApiClient, id: string): Promise<RunEvent[]> {
  const page = await api.call<{ items: RunEvent[] }>(
    'GET',
    `/v1/runs/${id}/events?format=json`,
    200,
  )
  return page.items
}
