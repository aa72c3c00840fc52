import { randomUUID } from 'node:crypto'
import { PassThrough } from 'node:stream'
import {
  TERMINAL_RUN_EVENT_TYPES,
  TERMINAL_RUN_STATUSES,
  getRun,
  listRunEvents,
  renewRunEventWatch,
  unwatchRunEvents,
  watchRunEvents,
  withTenant,
  type Database,
  type RunEventRow,
  type RunEventType,
  type RunStatus,
  type RunEventWatch,
  type TenantTx,
} from '@weave/db'
import type { Logger } from 'pino'
import { NotFoundError, ServiceUnavailableError } from '../http/app-errors.js'
import { sseComment, sseMessage, sseRetry } from '../http/sse.js'
import type { RunEvent } from '../schemas/runs.js'
import type { RunEventWakeups } from './run-event-wakeups.js'
import { requireRun } from './run-views.js'

/** What {@link createRunEventStreams} builds streams over. */
export interface RunEventStreamDeps {
  database: Pick<Database, 'db'>
  /**
   * Live wake-ups (Postgres LISTEN); without them streams only poll. With them each stream
   * watches its run (run_event_watches), for its events to be announced at all.
   */
  wakeups?: RunEventWakeups
  /**
   * How long a stream's watch of its run lives unless renewed (default 10 min): it is renewed
   * every fifth of that, at a poll, so only a stream whose process went away lets it expire.
   */
  watchTtlMs?: number
  /** How often a stream reads new events unwoken: default 5 s with wake-ups, 500 ms without. */
  pollMs?: number
  /** How often an idle stream sends a `: ping` comment (default 15 s). */
  heartbeatMs?: number
  /** The reconnect delay suggested to clients (default 2 s). */
  retryMs?: number
  /** Streams one API process serves at once (default 1000). */
  maxStreams?: number
  /** Streams one API process serves one tenant at once (default 100). */
  maxStreamsPerTenant?: number
  /**
   * How long a stream whose client stopped reading may wait for the socket to drain before it
   * is ended (default 30 s); the client reconnects with Last-Event-ID and loses nothing.
   */
  drainTimeoutMs?: number
}

/** Server-Sent Event streams of run events. */
export interface RunEventStreams {
  /** Streams one process serves at once; `open` refuses more. */
  readonly maxStreams: number
  /** Streams one process serves one tenant at once; `open` refuses more. */
  readonly maxStreamsPerTenant: number
  /** Streams open (or being opened) now, for the metrics. */
  readonly size: number
  /**
   * The run's events after `afterSeq` as SSE, then its new events as they are committed, until
   * its terminal event; end the stream to stop early.
   * @throws {ServiceUnavailableError} (503, Retry-After) when the process or the tenant already
   *   has its maximum of streams
   * @throws {NotFoundError} `run-not-found` (also for another tenant's run), before any byte
   */
  open(
    tenant: string,
    runId: string,
    afterSeq: number,
    log: Pick<Logger, 'warn'>,
    options?: { endAt?: Date | undefined },
  ): Promise<PassThrough>
}

// setTimeout's longest delay; a later end is waited for in steps.
const MAX_TIMER_MS = 2_147_483_647

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

/**
 * Builds the {@link RunEventStreams}: one polling loop per stream, woken by `wakeups`.
 *
 * A stream's slot is taken synchronously when `open` is called, before anything is awaited, so
 * concurrent opens cannot overshoot the caps (run-event-stream-limits.int.test.ts). A stream writes
 * only while its socket keeps up: once a write is refused it reads nothing more until the socket
 * drains, and ends when that takes longer than `drainTimeoutMs`, so a client that stops reading
 * costs at most one buffer and one event of memory.
 */
export function createRunEventStreams(deps: RunEventStreamDeps): RunEventStreams {
  const pollMs = deps.pollMs ?? (deps.wakeups ? 5_000 : 500)
  const heartbeatMs = deps.heartbeatMs ?? 15_000
  const drainTimeoutMs = deps.drainTimeoutMs ?? 30_000
  const maxStreams = deps.maxStreams ?? 1_000
  const maxStreamsPerTenant = deps.maxStreamsPerTenant ?? 100
  const watchTtlMs = deps.watchTtlMs ?? 600_000
  const perTenant = new Map<string, number>()
  let open = 0

  const reserve = (tenant: string): (() => void) => {
    const tenantOpen = perTenant.get(tenant) ?? 0
    if (open >= maxStreams || tenantOpen >= maxStreamsPerTenant) {
      const whose = open >= maxStreams ? 'here' : 'for this tenant'
      const detail = `Too many event streams are open ${whose}; retry shortly.`
      throw new ServiceUnavailableError(detail, { retryAfterSeconds: 5 })
    }
    open += 1
    perTenant.set(tenant, tenantOpen + 1)
    let isReleased = false
    return () => {
      if (isReleased) return
      isReleased = true
      open -= 1
      const left = (perTenant.get(tenant) ?? 1) - 1
      if (left > 0) perTenant.set(tenant, left)
      else perTenant.delete(tenant)
    }
  }

  // The status is read before the events: a run seen terminal has committed its terminal event,
  // so an empty read after it means there is nothing more to send (run-events.e2e.test.ts).
  const read = (tenant: string, runId: string, afterSeq: number) =>
    withTenant(deps.database, tenant, async (tx) => {
      const run = await getRun(tx, runId)
      const events = run ? await listRunEvents(tx, runId, { afterSeq, limit: PAGE }) : []
      return { status: run?.status, events }
    })

  return {
    maxStreams,
    maxStreamsPerTenant,
    get size() {
      return open
    },
    async open(tenant, runId, afterSeq, log, options = {}) {
      // No await before this line: the check and the reservation are one step.
      const release = reserve(tenant)
      const watch = deps.wakeups ? { watcher: randomUUID(), ttlMs: watchTtlMs } : undefined
      try {
        await withTenant(deps.database, tenant, async (tx) => {
          await (watch ? watchRun(tx, runId, watch) : requireRun(tx, runId))
        })
      } catch (err) {
        release()
        throw err
      }
      const stream = new PassThrough()
      let last = afterSeq
      let isBusy = false
      let isDue = false
      let isFinished = false
      let stalled: NodeJS.Timeout | undefined
      let expiry: NodeJS.Timeout | undefined
      let renewAt = Date.now() + watchTtlMs / 5
      // The watch's renewals and its removal, one after the other; never rejects.
      let watchWork = Promise.resolve()

      const finish = (how: 'end' | 'destroy' = 'end') => {
        if (isFinished) return
        isFinished = true
        clearInterval(poll)
        clearInterval(heartbeat)
        clearTimeout(stalled)
        clearTimeout(expiry)
        unsubscribe()
        release()
        if (watch) {
          watchWork = watchWork
            .then(() =>
              withTenant(deps.database, tenant, (tx) => unwatchRunEvents(tx, runId, watch.watcher)),
            )
            .catch((err: unknown) => {
              log.warn({ err, runId }, 'run event watch not removed; it expires by itself')
            })
        }
        // A stalled client cannot take the rest: destroying closes its socket and frees it.
        if (how === 'destroy') return void stream.destroy()
        if (stream.destroyed) return
        stream.end()
        // The last events may wait behind a socket the client stopped reading (a refused write
        // shows only at the next write, so there may have been none): the stream then never
        // closes and would hold its connection, so it is cut off
        // (run-event-stream-limits.int.test.ts).
        const cut = setTimeout(() => stream.destroy(), drainTimeoutMs).unref()
        stream.once('close', () => clearTimeout(cut))
      }
      // False once the stream buffers more than its high-water mark: wait for 'drain'.
      const write = (text: string): boolean => {
        if (stream.write(text)) return true
        stalled ??= setTimeout(() => {
          log.warn({ runId, drainTimeoutMs }, 'event stream client stopped reading; ending it')
          finish('destroy')
        }, drainTimeoutMs)
        return false
      }
      const isBlocked = () => stalled !== undefined
      // Whether the stream is done (terminal event sent, or the run is gone).
      const send = (events: RunEventRow[], status: RunStatus | undefined): boolean => {
        for (const event of events) {
          const isSent = write(sseMessage(event.seq, event.type, JSON.stringify(toRunEvent(event))))
          last = event.seq
          if (TERMINAL_RUN_EVENT_TYPES.includes(event.type as RunEventType)) return true
          if (!isSent) return false
        }
        return status === undefined || (events.length === 0 && isTerminal(status))
      }
      // One read at a time per stream; a wake-up during a read makes it read once more.
      const pump = async (): Promise<void> => {
        if (isFinished || isBlocked()) return
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
            // Read on at once when there is more; a blocked stream reads on when it drains.
            if (events.length === PAGE) isDue = true
          } while (isDue && !isFinished && !isBlocked())
        } catch (err) {
          // The client reconnects with Last-Event-ID and loses nothing.
          log.warn({ err, runId }, 'run event stream failed; closing it')
          finish()
        } finally {
          isBusy = false
        }
      }
      const wake = () => void pump()
      // A watch still in force is extended in place. One that lapsed (renewals failed for half
      // its life) is registered again like at the start, and the events are read after that:
      // those committed meanwhile may not have been announced.
      const renewWatch = () => {
        if (!watch || isFinished || Date.now() < renewAt) return
        renewAt = Infinity
        watchWork = watchWork
          .then(async () => {
            const renew = (tx: TenantTx) => renewRunEventWatch(tx, runId, watch)
            if (await withTenant(deps.database, tenant, renew)) return
            if (isFinished) return
            await withTenant(deps.database, tenant, (tx) => watchRunEvents(tx, runId, watch))
            wake()
          })
          .catch((err: unknown) => {
            log.warn({ err, runId }, 'run event watch not renewed; retrying later')
          })
          .finally(() => {
            renewAt = Date.now() + watchTtlMs / 5
          })
      }
      const unsubscribe = deps.wakeups?.subscribe(runId, wake) ?? (() => undefined)
      const poll = setInterval(() => {
        renewWatch()
        wake()
      }, pollMs)
      // A blocked stream has bytes in flight already; a ping would only add to them.
      const heartbeat = setInterval(() => {
        if (!isBlocked()) write(sseComment('ping'))
      }, heartbeatMs)
      stream.on('drain', () => {
        clearTimeout(stalled)
        stalled = undefined
        wake()
      })
      // Fastify destroys the stream when the client goes away.
      stream.on('close', () => finish())
      // A stream must not outlive the token that opened it: it ends when the token expires, and the
      // client reconnects with a fresh one and Last-Event-ID, losing nothing.
      const endAt = options.endAt
      const expire = () => {
        const remaining = endAt ? endAt.getTime() - Date.now() : Infinity
        if (remaining > 0) {
          expiry = setTimeout(expire, Math.min(remaining, MAX_TIMER_MS))
          return
        }
        if (!isBlocked()) write(sseComment('token expired'))
        finish()
      }
      // The retry line goes first: a token already past its end (within the clock skew
      // verification allows) ends the stream at once, and nothing may be written after that.
      write(sseRetry(deps.retryMs ?? 2_000))
      if (endAt) expire()
      wake()
      return stream
    },
  }
}

/**
 * Registers the stream's watch of the run, in the transaction that checks the run exists, so
 * opening a stream costs no extra round trip. The watch commits before the stream's first read,
 * and registering waits for any appender to the run that has not committed, so each event is in
 * that read or announced (run-event-watches.int.test.ts).
 * @throws {NotFoundError} `run-not-found`, also for an id that is not a UUID
 */
async function watchRun(tx: TenantTx, runId: string, watch: RunEventWatch): Promise<void> {
  if (await watchRunEvents(tx, runId, watch)) return
  throw new NotFoundError(`No run ${runId}.`, { problem: 'run-not-found' })
}

function isTerminal(status: RunStatus): boolean {
  return TERMINAL_RUN_STATUSES.includes(status)
}
