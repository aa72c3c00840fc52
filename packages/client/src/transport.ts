import { retryAfterSeconds } from './problem.js'

/** A bearer token, or a function the client calls before each request for the current one. */
export type TokenSource = string | (() => string | Promise<string>)

/** How the client retries a request Weave could not take now. */
export interface RetryOptions {
  /** Attempts in all, the first included (default 4; 1 turns retries off). */
  attempts?: number
  /** The longest wait before one retry (default 60 s); a longer `Retry-After` is not waited for. */
  maxDelayMs?: number
  /** The wait before the first retry when the answer has no `Retry-After` (default 500 ms), doubled each time. */
  baseDelayMs?: number
  /** Called before each retry: the status that caused it (0 for a network error) and the wait. */
  onRetry?: (retry: { attempt: number; status: number; delayMs: number; url: string }) => void
}

/** What every request of the client goes through: authentication, then retries. */
export interface Transport {
  send(request: Request): Promise<Response>
}

// 429: the tenant's rate limit; 503: Postgres away or too many event streams. Weave did nothing
// with such a request, so sending it again is safe whatever its method.
const RETRIED_STATUSES = new Set([429, 503])

/**
 * A transport that adds `Authorization: Bearer <token>` (asking `token` each time, so a rotated
 * token is used from the next request on) and retries 429 and 503 answers after their
 * `Retry-After`, or with exponential backoff when they carry none. A network error is retried
 * only when sending again cannot do a thing twice: a GET, or a request with an Idempotency-Key.
 */
export function createTransport(o: {
  token: TokenSource
  fetch?: (request: Request) => Promise<Response>
  retry?: RetryOptions
}): Transport {
  const doFetch = o.fetch ?? ((request: Request) => globalThis.fetch(request))
  const attempts = Math.max(1, o.retry?.attempts ?? 4)
  const maxDelayMs = o.retry?.maxDelayMs ?? 60_000
  const baseDelayMs = o.retry?.baseDelayMs ?? 500
  const tokenOf = typeof o.token === 'function' ? o.token : () => o.token as string

  return {
    async send(request) {
      const replayable =
        request.method === 'GET' ||
        request.method === 'HEAD' ||
        request.headers.has('idempotency-key')
      for (let attempt = 1; ; attempt++) {
        const headers = new Headers(request.headers)
        headers.set('authorization', `Bearer ${await tokenOf()}`)
        // The original stays unread, so every attempt sends the same body.
        const sent = new Request(request.clone(), { headers })
        let response: Response
        try {
          response = await doFetch(sent)
        } catch (error) {
          if (request.signal.aborted || !replayable || attempt >= attempts) throw error
          const delayMs = Math.min(maxDelayMs, backoff(baseDelayMs, attempt))
          o.retry?.onRetry?.({ attempt, status: 0, delayMs, url: request.url })
          await sleep(delayMs, request.signal)
          continue
        }
        if (!RETRIED_STATUSES.has(response.status) || attempt >= attempts) return response
        const after = retryAfterSeconds(response.headers.get('retry-after'))
        const delayMs = after === undefined ? backoff(baseDelayMs, attempt) : after * 1000
        if (delayMs > maxDelayMs) return response
        await response.body?.cancel()
        o.retry?.onRetry?.({ attempt, status: response.status, delayMs, url: request.url })
        await sleep(delayMs, request.signal)
      }
    },
  }
}

/** Doubles from `base` per attempt, with up to a quarter more at random so clients spread out. */
function backoff(base: number, attempt: number): number {
  const delay = base * 2 ** (attempt - 1)
  return Math.round(delay + Math.random() * delay * 0.25)
}

/**
 * Resolves after `ms`, or rejects with the signal's reason once it aborts.
 */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(abortReason(signal))
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort)
      resolve()
    }, ms)
    const onAbort = () => {
      clearTimeout(timer)
      reject(abortReason(signal!))
    }
    signal?.addEventListener('abort', onAbort, { once: true })
  })
}

/** What aborted `signal`: its reason (an `AbortError` or `TimeoutError` unless given another). */
function abortReason(signal: AbortSignal): Error {
  const reason: unknown = signal.reason
  return reason instanceof Error ? reason : new Error(String(reason))
}
