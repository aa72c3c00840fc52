import { setTimeout as sleep } from 'node:timers/promises'
import { traceHttpExchange } from './trace-http.js'

/** One HTTP exchange with retries; what the http and llm steps share. */
export interface RequestOptions {
  fetch: typeof fetch
  url: string
  method: string
  headers: Record<string, string>
  body?: string
  /** Total attempts, the first included. */
  attempts: number
  /** Delay before the second attempt; doubled for each later one. */
  backoffMs: number
  /** Per attempt, body reading included. */
  timeoutMs: number
  signal: AbortSignal
  maxBodyBytes: number
  /** Whether a status (already known to be 5xx or 429) may be retried. */
  retryStatus: (status: number) => boolean
}

/** A response read in full. */
export interface ReadResponse {
  status: number
  headers: Record<string, string>
  text: string
  attempts: number
}

/** Why an exchange failed; `kind` says whether the network or the size limit stopped it. */
export class RequestFailedError extends Error {
  override name = 'RequestFailedError'
  constructor(
    readonly kind: 'network' | 'too-large' | 'aborted',
    message: string,
    readonly attempts: number,
    options?: ErrorOptions,
  ) {
    super(message, options)
  }
}

class BodyTooLargeError extends Error {}

async function readCapped(res: Response, max: number): Promise<string> {
  const declared = Number(res.headers.get('content-length'))
  if (Number.isFinite(declared) && declared > max) {
    await res.body?.cancel()
    throw new BodyTooLargeError()
  }
  if (!res.body) return ''
  const reader = res.body.getReader()
  const chunks: Uint8Array[] = []
  let total = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    total += value.byteLength
    if (total > max) {
      await reader.cancel()
      throw new BodyTooLargeError()
    }
    chunks.push(value)
  }
  return Buffer.concat(chunks).toString('utf8')
}

function isRetryableStatus(status: number): boolean {
  return status === 429 || (status >= 500 && status <= 599)
}

/**
 * Sends the request, retrying network errors, timeouts and retryable statuses with exponential
 * backoff; redirects are returned, never followed. The exchange, retries included, is one client
 * span whose context the request carries (`traceparent`), so the receiver joins the run's trace.
 * @throws RequestFailedError when the last attempt fails, the body is too large, or `signal` aborts.
 */
export function sendWithRetry(o: RequestOptions): Promise<ReadResponse> {
  return traceHttpExchange(
    o,
    (traceHeaders) => sendAttempts({ ...o, headers: { ...o.headers, ...traceHeaders } }),
    (res) => res.status,
  )
}

async function sendAttempts(o: RequestOptions): Promise<ReadResponse> {
  for (let attempt = 1; ; attempt++) {
    const last = attempt >= o.attempts
    if (o.signal.aborted) {
      throw new RequestFailedError('aborted', 'cancelled', attempt - 1, { cause: o.signal.reason })
    }
    const signal = AbortSignal.any([o.signal, AbortSignal.timeout(o.timeoutMs)])
    try {
      const res = await o.fetch(o.url, {
        method: o.method,
        headers: o.headers,
        body: o.body,
        redirect: 'manual',
        signal,
      })
      if (!last && isRetryableStatus(res.status) && o.retryStatus(res.status)) {
        await res.body?.cancel()
      } else {
        const text = o.method === 'HEAD' ? '' : await readCapped(res, o.maxBodyBytes)
        const headers = Object.fromEntries(res.headers)
        return { status: res.status, headers, text, attempts: attempt }
      }
    } catch (err) {
      if (err instanceof BodyTooLargeError) {
        throw new RequestFailedError(
          'too-large',
          `the response body is larger than ${o.maxBodyBytes} bytes`,
          attempt,
        )
      }
      if (o.signal.aborted) {
        throw new RequestFailedError('aborted', 'cancelled', attempt, { cause: err })
      }
      if (last) {
        const timedOut = signal.aborted
        const detail = timedOut ? `timed out after ${o.timeoutMs} ms` : (err as Error).message
        throw new RequestFailedError('network', detail, attempt, { cause: err })
      }
    }
    try {
      await sleep(o.backoffMs * 2 ** (attempt - 1), undefined, { signal: o.signal })
    } catch (err) {
      throw new RequestFailedError('aborted', 'cancelled', attempt, { cause: err })
    }
  }
}
