import createClient, { type Client } from 'openapi-fetch'
import type { components, operations, paths } from './openapi-types.js'
import { WeaveProblemError } from './problem.js'
import { sseMessages } from './sse.js'
import { createTransport, sleep, type RetryOptions, type TokenSource } from './transport.js'

type Schemas = components['schemas']

export type Run = Schemas['Run']
export type RunSummary = Schemas['RunSummary']
export type RunPage = Schemas['RunPage']
export type RunStatus = Run['status']
export type RunEvent = Schemas['RunEvent']
export type RunEventType = RunEvent['type']
export type Approval = Schemas['Approval']
export type ApprovalPage = Schemas['ApprovalPage']
export type DecisionBody = Schemas['DecisionBody']
export type GraphSpec = Schemas['RegisterGraphBody']['spec']
export type Graph = Schemas['Graph']
export type GraphVersion = Schemas['GraphVersion']
export type GraphPage = Schemas['GraphPage']
export type RegisteredGraph = Schemas['RegisteredGraph']
export type AuditVerification = Schemas['AuditVerification']
export type AuditPage = Schemas['AuditPage']
export type Problem = Schemas['Problem']
export type Thread = Schemas['Thread']
export type ThreadSummary = Schemas['ThreadSummary']
export type ThreadPage = Schemas['ThreadPage']
export type Schedule = Schemas['Schedule']
export type SchedulePage = Schemas['SchedulePage']
export type ScheduleFiring = Schemas['ScheduleFiring']

export type ListRunsQuery = NonNullable<operations['listRuns']['parameters']['query']>
export type ListApprovalsQuery = NonNullable<operations['listApprovals']['parameters']['query']>
export type ListAuditQuery = NonNullable<operations['listAuditEvents']['parameters']['query']>
export type ListThreadsQuery = NonNullable<operations['listThreads']['parameters']['query']>
export type ListSchedulesQuery = NonNullable<operations['listSchedules']['parameters']['query']>

/** Options of {@link createWeaveClient}. */
export interface WeaveClientOptions {
  /** Where Weave's API is, such as `http://127.0.0.1:3000`. */
  baseUrl: string
  /** A bearer token, or a function called before each request that returns the current one. */
  token: TokenSource
  /** The fetch to send requests with (default: the global one). */
  fetch?: (request: Request) => Promise<Response>
  /** Retries of 429 and 503 answers (see {@link RetryOptions}). */
  retry?: RetryOptions
}

/** Options of every call: a signal that cancels it. */
export interface CallOptions {
  signal?: AbortSignal
}

/** Options of `runs.events`. */
export interface RunEventsOptions extends CallOptions {
  /** Start after this event id, as `Last-Event-ID` does (default 0: every event). */
  after?: number
  /** How often to poll the JSON list while the stream cannot be opened (default 2 s). */
  pollIntervalMs?: number
}

/** Options of `runs.wait`. */
export interface WaitOptions extends RunEventsOptions {
  /** Resolve once the run has one of these statuses (default: completed, failed, cancelled). */
  until?: readonly RunStatus[]
  /** Give up after this long, rejecting with the `TimeoutError` of `AbortSignal.timeout`. */
  timeoutMs?: number
}

const TERMINAL_STATUSES: ReadonlySet<RunStatus> = new Set(['completed', 'failed', 'cancelled'])

/** The status each status-changing event leaves its run in. */
const STATUS_AFTER: Partial<Record<RunEventType, RunStatus>> = {
  'run.queued': 'queued',
  'run.started': 'running',
  'run.resumed': 'running',
  'run.waiting': 'waiting',
  'run.completed': 'completed',
  'run.failed': 'failed',
  'run.cancelled': 'cancelled',
}

const RECONNECT_DELAY_MS = 1000
const MAX_RECONNECT_DELAY_MS = 30_000

/** A typed client of Weave's API; see {@link createWeaveClient}. */
export type WeaveClient = ReturnType<typeof createWeaveClient>

/**
 * A client of Weave's API. Every method resolves with the answer's body as the OpenAPI document
 * types it and rejects with a {@link WeaveProblemError} for an error answer; 429 and 503 are
 * retried first. `api` is the generated client itself, for any operation not wrapped here (its
 * answers are not thrown).
 */
export function createWeaveClient(options: WeaveClientOptions) {
  const baseUrl = options.baseUrl.replace(/\/+$/, '')
  const transport = createTransport(options)
  const api: Client<paths> = createClient<paths>({
    baseUrl,
    fetch: (request) => transport.send(request),
  })

  /** The body of a successful answer; throws the problem of any other. */
  async function ok<T>(pending: Promise<{ data?: T; error?: unknown; response: Response }>) {
    const { data, error, response } = await pending
    if (!response.ok) throw new WeaveProblemError(response, error)
    return data as T
  }

  const runs = {
    /**
     * Starts a run of the latest version of `graph` (or `version`). With an `idempotencyKey`, the
     * same call made again within 24 h returns the first run instead of starting another.
     */
    start(
      graph: string,
      input: Record<string, unknown> = {},
      o: CallOptions & { idempotencyKey?: string; version?: number } = {},
    ): Promise<Run> {
      return ok(
        api.POST('/v1/runs', {
          body: { graph, input, ...(o.version === undefined ? {} : { version: o.version }) },
          params: {
            header: o.idempotencyKey === undefined ? {} : { 'idempotency-key': o.idempotencyKey },
          },
          signal: o.signal,
        }),
      )
    },

    get(id: string, o: CallOptions = {}): Promise<Run> {
      return ok(api.GET('/v1/runs/{id}', { params: { path: { id } }, signal: o.signal }))
    },

    /** One page of the tenant's runs, newest first; pass `nextCursor` as `cursor` for the next. */
    list(query: ListRunsQuery = {}, o: CallOptions = {}): Promise<RunPage> {
      return ok(api.GET('/v1/runs', { params: { query }, signal: o.signal }))
    },

    /** Asks the run to stop; it becomes `cancelled` at its next step boundary. */
    cancel(id: string, o: CallOptions = {}) {
      return ok(api.POST('/v1/runs/{id}/cancel', { params: { path: { id } }, signal: o.signal }))
    },

    /** A new run from entry `seq` of this run's history, with `input` merged into its state. */
    fork(id: string, body: Schemas['ForkRunBody'], o: CallOptions = {}): Promise<Run> {
      return ok(
        api.POST('/v1/runs/{id}/fork', { params: { path: { id } }, body, signal: o.signal }),
      )
    },

    /** Answers a run waiting on an input step, or retries a failed one. */
    resume(id: string, body: Schemas['ResumeRunBody'] = {}, o: CallOptions = {}): Promise<Run> {
      return ok(
        api.POST('/v1/runs/{id}/resume', { params: { path: { id } }, body, signal: o.signal }),
      )
    },

    /**
     * The run's events in order, from the event stream: every past event, then each new one as
     * it happens, ending after the run's terminal event. A dropped connection is reopened with
     * `Last-Event-ID`, so no event is lost or repeated; while the stream cannot be opened (too
     * many streams, or something between strips it), the JSON list is polled instead.
     */
    events(id: string, o: RunEventsOptions = {}): AsyncGenerator<RunEvent, void> {
      return runEvents(id, o)
    },

    /**
     * Resolves with the run once its status is one of `until` (default: finished), or once it
     * finished otherwise; follows the event stream rather than polling.
     */
    async wait(id: string, o: WaitOptions = {}): Promise<Run> {
      const until = new Set<RunStatus>(o.until ?? TERMINAL_STATUSES)
      const signals = [
        o.signal,
        o.timeoutMs === undefined ? undefined : AbortSignal.timeout(o.timeoutMs),
      ]
      const present = signals.filter((s): s is AbortSignal => s !== undefined)
      const signal = present.length > 1 ? AbortSignal.any(present) : present[0]
      const settled = (run: Run) => until.has(run.status) || TERMINAL_STATUSES.has(run.status)

      let run = await runs.get(id, { signal })
      if (settled(run)) return run
      for await (const event of runEvents(id, { ...o, signal })) {
        const status = STATUS_AFTER[event.type]
        if (status === undefined || !(until.has(status) || TERMINAL_STATUSES.has(status))) continue
        run = await runs.get(id, { signal })
        if (settled(run)) return run
      }
      return runs.get(id, { signal })
    },
  }

  async function* runEvents(id: string, o: RunEventsOptions): AsyncGenerator<RunEvent, void> {
    const url = `${baseUrl}/v1/runs/${encodeURIComponent(id)}/events`
    let last = o.after ?? 0
    let reconnectMs = RECONNECT_DELAY_MS
    let failures = 0
    for (;;) {
      o.signal?.throwIfAborted()
      const seenBefore = last
      let response: Response | undefined
      try {
        response = await transport.send(
          new Request(url, {
            headers: { accept: 'text/event-stream', 'last-event-id': String(last) },
            ...(o.signal ? { signal: o.signal } : {}),
          }),
        )
      } catch (error) {
        if (o.signal?.aborted) throw error
      }
      let ended = false
      if (response !== undefined && !response.ok && response.status !== 503) {
        throw await WeaveProblemError.fromResponse(response)
      }
      const isStream =
        response?.ok === true &&
        response.body !== null &&
        (response.headers.get('content-type') ?? '').startsWith('text/event-stream')
      if (isStream) {
        try {
          for await (const message of sseMessages(response!.body!)) {
            if (message.retryMs !== undefined) reconnectMs = message.retryMs
            if (message.data === '') continue
            const event = JSON.parse(message.data) as RunEvent
            if (event.id <= last) continue
            last = event.id
            yield event
            if (isTerminal(event)) return
          }
        } catch (error) {
          // A dropped connection ends the read with an error: reconnect. An abort is the caller's.
          if (o.signal?.aborted) throw error
        }
      } else {
        // The stream cannot be had now: read what the JSON list holds, then try the stream again.
        await response?.body?.cancel()
        for await (const event of polledEvents(id, last, o.signal)) {
          last = event.id
          yield event
          if (isTerminal(event)) ended = true
        }
        if (ended) return
        await sleep(o.pollIntervalMs ?? 2000, o.signal)
        continue
      }
      failures = last > seenBefore ? 0 : failures + 1
      await sleep(
        Math.min(MAX_RECONNECT_DELAY_MS, reconnectMs * 2 ** Math.max(0, failures - 1)),
        o.signal,
      )
    }
  }

  /** The events after `after` from the JSON list, every page of it. */
  async function* polledEvents(id: string, after: number, signal: AbortSignal | undefined) {
    // The list's cursor is the id of the last event read, so `after` starts it where we are.
    let cursor: string | null = after > 0 ? String(after) : null
    do {
      const page = (await ok(
        api.GET('/v1/runs/{id}/events', {
          params: {
            path: { id },
            query: { format: 'json', ...(cursor === null ? {} : { cursor }) },
          },
          parseAs: 'json',
          signal,
        }),
      )) as Schemas['RunEventPage']
      yield* page.items
      cursor = page.nextCursor
    } while (cursor !== null)
  }

  const approvals = {
    /** One page of the tenant's approvals, newest first. */
    list(query: ListApprovalsQuery = {}, o: CallOptions = {}): Promise<ApprovalPage> {
      return ok(api.GET('/v1/approvals', { params: { query }, signal: o.signal }))
    },

    get(id: string, o: CallOptions = {}): Promise<Approval> {
      return ok(api.GET('/v1/approvals/{id}', { params: { path: { id } }, signal: o.signal }))
    },

    /**
     * Decides `approval` on exactly what the decider was shown: its `materialHash` is sent, so a
     * title or details changed since it was read make Weave refuse with 409
     * (`material-mismatch`) instead of recording a decision on something else.
     */
    decide(
      approval: Pick<Approval, 'id' | 'materialHash'>,
      decision: DecisionBody['decision'],
      o: CallOptions & Pick<DecisionBody, 'comment' | 'input'> = {},
    ): Promise<Approval> {
      const body: DecisionBody = { decision, materialHash: approval.materialHash }
      if (o.comment !== undefined) body.comment = o.comment
      if (o.input !== undefined) body.input = o.input
      return ok(
        api.POST('/v1/approvals/{id}/decision', {
          params: { path: { id: approval.id } },
          body,
          signal: o.signal,
        }),
      )
    },
  }

  const graphs = {
    /**
     * Registers `spec` under `name`: a new version when it differs from the latest
     * (`created: true`), else the latest itself (`created: false`).
     */
    async register(
      name: string,
      spec: GraphSpec,
      o: CallOptions & { description?: string } = {},
    ): Promise<RegisteredGraph & { created: boolean }> {
      const { data, error, response } = await api.POST('/v1/graphs', {
        body: {
          name,
          spec,
          ...(o.description === undefined ? {} : { description: o.description }),
        },
        signal: o.signal,
      })
      if (!response.ok) throw new WeaveProblemError(response, error)
      return { ...data!, created: response.status === 201 }
    },

    get(name: string, o: CallOptions = {}): Promise<Graph> {
      return ok(api.GET('/v1/graphs/{name}', { params: { path: { name } }, signal: o.signal }))
    },

    version(name: string, version: number, o: CallOptions = {}): Promise<GraphVersion> {
      return ok(
        api.GET('/v1/graphs/{name}/versions/{version}', {
          params: { path: { name, version: String(version) } },
          signal: o.signal,
        }),
      )
    },

    list(
      query: NonNullable<operations['listGraphs']['parameters']['query']> = {},
      o: CallOptions = {},
    ): Promise<GraphPage> {
      return ok(api.GET('/v1/graphs', { params: { query }, signal: o.signal }))
    },
  }

  const audit = {
    /** Checks the tenant's hash chain from its first event; `ok: false` names the first bad one. */
    verify(o: CallOptions = {}): Promise<AuditVerification> {
      return ok(api.GET('/v1/audit/verify', { signal: o.signal }))
    },

    list(query: ListAuditQuery = {}, o: CallOptions = {}): Promise<AuditPage> {
      return ok(api.GET('/v1/audit', { params: { query }, signal: o.signal }))
    },
  }

  const threads = {
    /** The tenant's threads, newest first; filter by `status` and contained `metadata`. */
    list(query: ListThreadsQuery = {}, o: CallOptions = {}): Promise<ThreadPage> {
      return ok(api.GET('/v1/threads', { params: { query }, signal: o.signal }))
    },

    /** The thread `key` with its latest state and active run. */
    get(key: string, o: CallOptions = {}): Promise<Thread> {
      return ok(api.GET('/v1/threads/{key}', { params: { path: { key } }, signal: o.signal }))
    },
  }

  const schedules = {
    /** The tenant's schedules that are not deleted, newest first. */
    list(query: ListSchedulesQuery = {}, o: CallOptions = {}): Promise<SchedulePage> {
      return ok(api.GET('/v1/schedules', { params: { query }, signal: o.signal }))
    },

    get(id: string, o: CallOptions = {}): Promise<Schedule> {
      return ok(api.GET('/v1/schedules/{id}', { params: { path: { id } }, signal: o.signal }))
    },

    /** Stops the schedule firing until it is resumed; a no-op when it is paused. */
    pause(id: string, o: CallOptions = {}): Promise<Schedule> {
      return ok(
        api.POST('/v1/schedules/{id}/pause', { params: { path: { id } }, signal: o.signal }),
      )
    },

    /** Lets a paused schedule fire again from its next tick. */
    resume(id: string, o: CallOptions = {}): Promise<Schedule> {
      return ok(
        api.POST('/v1/schedules/{id}/resume', { params: { path: { id } }, signal: o.signal }),
      )
    },

    /** Fires the schedule now, paused or not: the firing, with its run or why it started none. */
    trigger(id: string, o: CallOptions = {}): Promise<ScheduleFiring> {
      return ok(
        api.POST('/v1/schedules/{id}/trigger', { params: { path: { id } }, signal: o.signal }),
      )
    },
  }

  return { api, runs, approvals, graphs, audit, threads, schedules }
}

function isTerminal(event: RunEvent): boolean {
  const status = STATUS_AFTER[event.type]
  return status !== undefined && TERMINAL_STATUSES.has(status)
}
