import { PassThrough } from 'node:stream'
import {
  TERMINAL_RUN_EVENT_TYPES,
  TERMINAL_RUN_STATUSES,
  getRun,
  listRunEvents,
  withTenant,
  type Database,
  type RunEventRow,
  type RunEventType,
  type RunStatus,
} from '@weave/db'
import type { Logger } from 'pino'
import { sseComment, sseMessage, sseRetry } from '../http/sse.js'
import type { RunEvent } from '../schemas/runs.js'
import type { RunEventWakeups } from './run-event-wakeups.js'
import { requireRun } from './run-views.js'

/** What {@link createRunEventStreams} builds streams over. */
export interface RunEventStreamDeps {
  database: Pick<Database, 'db'>
  /** Live wake-ups (Postgres LISTEN); without them streams only poll. */
  wakeups?: RunEventWakeups
  /** How often a stream reads new events unwoken: default 5 s with wake-ups, 500 ms without. */
  pollMs?: number
  /** How often an idle stream sends a `: ping` comment (default 15 s). */
  heartbeatMs?: number
  /** The reconnect delay suggested to clients (default 2 s). */
  retryMs?: number
  /** Streams one API process serves at once (default 1000). */
  maxStreams?: number
}

/** Server-Sent Event streams of run events. */
export interface RunEventStreams {
  /** Streams one process serves at once; the route refuses more. */
  readonly maxStreams: number
  /** Streams open now, for the metrics. */
  readonly size: number
  /**
   * The run's events after `afterSeq` as SSE, then its new events as they are committed, until
   * its terminal event; end the stream to stop early.
   * @throws {NotFoundError} `run-not-found` (also for another tenant's run), before any byte
   */
  open(
    tenant: string,
    runId: string,
    afterSeq: number,
    log: Pick<Logger, 'warn'>,
  ): Promise<PassThrough>
}

// Events read per query; a stream with more to send reads again at once.
const PAGE = 200

/**
 * The event as `GET /v1/runs/{id}/events` lists and streams it. An `approval.requested` event's
 * approve and reject links are left out: they decide the approval without a token, and reading
 * a run's events takes only `runs:read`. They reach the approval's webhook subscribers.
 */
export function toRunEvent(event: RunEventRow): RunEvent {
  return { id: event.seq, type: event.type, data: withoutLinks(event), at: event.at.toISOString() }
}

function withoutLinks(event: RunEventRow): RunEventRow['data'] {
  const data = event.data
  if (event.type !== 'approval.requested' || typeof data !== 'object' || data === null) return data
  if (Array.isArray(data)) return data
  const { approveUrl: _approve, rejectUrl: _reject, ...rest } = data as Record<string, unknown>
  return rest
}

/** Builds the {@link RunEventStreams}: one polling loop per stream, woken by `wakeups`. */
export function createRunEventStreams(deps: RunEventStreamDeps): RunEventStreams {
  const pollMs = deps.pollMs ?? (deps.wakeups ? 5_000 : 500)
  const heartbeatMs = deps.heartbeatMs ?? 15_000
  let open = 0

  // The status is read before the events: a run seen terminal has committed its terminal event,
  // so an empty read after it means there is nothing more to send (run-events.e2e.test.ts).
  const read = (tenant: string, runId: string, afterSeq: number) =>
    withTenant(deps.database, tenant, async (tx) => {
      const run = await getRun(tx, runId)
      const events = run ? await listRunEvents(tx, runId, { afterSeq, limit: PAGE }) : []
      return { status: run?.status, events }
    })

  return {
    maxStreams: deps.maxStreams ?? 1_000,
    get size() {
      return open
    },
    async open(tenant, runId, afterSeq, log) {
      await withTenant(deps.database, tenant, (tx) => requireRun(tx, runId))
      const stream = new PassThrough()
      open += 1
      let last = afterSeq
      let isBusy = false
      let isDue = false
      let isFinished = false

      const finish = () => {
        if (isFinished) return
        isFinished = true
        clearInterval(poll)
        clearInterval(heartbeat)
        unsubscribe()
        open -= 1
        if (!stream.destroyed) stream.end()
      }
      const send = (events: RunEventRow[], status: RunStatus | undefined): boolean => {
        for (const event of events) {
          stream.write(sseMessage(event.seq, event.type, JSON.stringify(toRunEvent(event))))
          last = event.seq
          if (TERMINAL_RUN_EVENT_TYPES.includes(event.type as RunEventType)) return true
        }
        return status === undefined || (events.length === 0 && isTerminal(status))
      }
      // One read at a time per stream; a wake-up during a read makes it read once more.
      const pump = async (): Promise<void> => {
        if (isFinished) return
        if (isBusy) {
          isDue = true
          return
        }
        isBusy = true
        try {
          do {
            isDue = false
            const { status, events } = await read(tenant, runId, last)
            if (isFinished) return
            if (send(events, status)) return finish()
            if (events.length === PAGE) isDue = true
          } while (isDue && !isFinished)
        } catch (err) {
          // The client reconnects with Last-Event-ID and loses nothing.
          log.warn({ err, runId }, 'run event stream failed; closing it')
          finish()
        } finally {
          isBusy = false
        }
      }
      const wake = () => void pump()
      const unsubscribe = deps.wakeups?.subscribe(runId, wake) ?? (() => undefined)
      const poll = setInterval(wake, pollMs)
      const heartbeat = setInterval(() => stream.write(sseComment('ping')), heartbeatMs)
      // Fastify destroys the stream when the client goes away.
      stream.on('close', finish)
      stream.write(sseRetry(deps.retryMs ?? 2_000))
      wake()
      return stream
    },
  }
}

function isTerminal(status: RunStatus): boolean {
  return TERMINAL_RUN_STATUSES.includes(status)
}
