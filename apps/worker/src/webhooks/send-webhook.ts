import {
  createEgressPolicy,
  type EgressDecision,
  type EgressPolicy,
  type LookupAll,
  traceHttpExchange,
} from '@weave/spec'

/** One POST of a webhook body. */
export interface WebhookRequest {
  url: string
  headers: Record<string, string>
  body: string
  /** The `WEAVE_HTTP_ALLOW` list, as for `http` steps. */
  allow: readonly string[]
  /** Whole exchange, connect to response headers. */
  timeoutMs: number
  /** Resolves host names (default: the system resolver). */
  lookup?: LookupAll
}

/** What one attempt got: a status code, or why there was none (`error` also explains a 3xx). */
export interface WebhookResponse {
  statusCode: number | null
  error: string | null
  isSuccess: boolean
}

/**
 * POSTs a webhook body under the same egress rules as `http` steps, through the same pinned
 * transport: the host is resolved once, checked, and the connection goes only to the addresses
 * checked, so a DNS answer that changes in between cannot reach a refused address. Redirects
 * are not followed (a 3xx is a failure). Never throws: every failure is described in `error`.
 */
export async function sendWebhook(o: WebhookRequest): Promise<WebhookResponse> {
  let url: URL
  try {
    url = new URL(o.url)
  } catch {
    return failure(null, 'the webhook URL does not parse')
  }
  let policy: EgressPolicy
  try {
    policy = createEgressPolicy(o.allow, o.lookup)
  } catch (err) {
    return failure(null, `refused: ${(err as Error).message}`)
  }
  let decision: EgressDecision
  try {
    decision = await policy.decide(url)
  } catch (err) {
    const host = url.hostname.replace(/^\[|\]$/g, '')
    return failure(null, `cannot resolve ${host}: ${(err as Error).message}`)
  }
  if (!decision.isAllowed) return failure(null, `refused: ${decision.reason}`)
  return post(url, o, decision.fetch)
}

// One client span per attempt; the receiver gets its `traceparent`, continuing the trace.
function post(url: URL, o: WebhookRequest, pinned: typeof fetch): Promise<WebhookResponse> {
  return traceHttpExchange(
    { method: 'POST', url },
    (traceHeaders) => postOnce(url, { ...o, headers: { ...o.headers, ...traceHeaders } }, pinned),
    (response) => response.statusCode,
  )
}

async function postOnce(
  url: URL,
  o: WebhookRequest,
  pinned: typeof fetch,
): Promise<WebhookResponse> {
  let res: Response
  try {
    res = await pinned(url, {
      method: 'POST',
      headers: o.headers,
      body: o.body,
      redirect: 'manual',
      signal: AbortSignal.timeout(o.timeoutMs),
    })
  } catch (err) {
    const name = (err as Error | null)?.name
    if (name === 'AbortError' || name === 'TimeoutError') {
      return failure(null, `no response within ${o.timeoutMs} ms`)
    }
    return failure(null, reasonOf(err))
  }
  // Only the status matters; the body is dropped unread.
  await res.body?.cancel().catch(() => undefined)
  const statusCode = res.status
  if (statusCode >= 200 && statusCode < 300) return { statusCode, error: null, isSuccess: true }
  if (statusCode >= 300 && statusCode < 400)
    return failure(statusCode, 'redirects are not followed')
  return { statusCode, error: null, isSuccess: false }
}

// The pinned fetch wraps network errors as "fetch failed"; the cause says what happened.
function reasonOf(err: unknown): string {
  const cause = (err as { cause?: unknown } | null)?.cause
  return cause instanceof Error ? cause.message : (err as Error).message
}

function failure(statusCode: number | null, error: string): WebhookResponse {
  return { statusCode, error, isSuccess: false }
}
