import { lookup as dnsLookup } from 'node:dns/promises'
import { request as httpRequest, type RequestOptions } from 'node:http'
import { request as httpsRequest } from 'node:https'
import type { LookupFunction } from 'node:net'
import { isIP } from 'node:net'
import { createEgressPolicy, type LookupAll } from '@weave/spec'

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

async function systemLookup(host: string): Promise<string[]> {
  const found = await dnsLookup(host, { all: true, verbatim: true })
  return found.map((a) => a.address)
}

/**
 * POSTs a webhook body under the same egress rules as `http` steps, checked now against the
 * addresses the host resolves to; the connection is then pinned to those checked addresses, so
 * a DNS answer that changes between check and connect cannot reach a refused address. Redirects
 * are not followed (a 3xx is a failure). Never throws: every failure is described in `error`.
 */
export async function sendWebhook(o: WebhookRequest): Promise<WebhookResponse> {
  let url: URL
  try {
    url = new URL(o.url)
  } catch {
    return failure(null, 'the webhook URL does not parse')
  }
  const host = url.hostname.replace(/^\[|\]$/g, '')
  let addresses: string[]
  try {
    addresses = isIP(host) !== 0 ? [host] : await (o.lookup ?? systemLookup)(host)
  } catch (err) {
    return failure(null, `cannot resolve ${host}: ${(err as Error).message}`)
  }
  let refusal: string | undefined
  try {
    refusal = await createEgressPolicy(o.allow, async () => addresses).check(url)
  } catch (err) {
    refusal = (err as Error).message
  }
  if (refusal !== undefined) return failure(null, `refused: ${refusal}`)
  return post(url, o, pinnedLookup(addresses))
}

function pinnedLookup(addresses: string[]): LookupFunction {
  return (_hostname, options, callback) => {
    const all = addresses.map((address) => ({ address, family: isIP(address) }))
    if (options.all) {
      ;(callback as (err: null, all: { address: string; family: number }[]) => void)(null, all)
      return
    }
    const first = all[0] as { address: string; family: number }
    callback(null, first.address, first.family)
  }
}

function post(url: URL, o: WebhookRequest, lookup: LookupFunction): Promise<WebhookResponse> {
  const options: RequestOptions = {
    method: 'POST',
    headers: { ...o.headers, 'content-length': String(Buffer.byteLength(o.body)) },
    lookup,
    // A fresh connection per attempt: a pooled socket could outlive the address check.
    agent: false,
    signal: AbortSignal.timeout(o.timeoutMs),
  }
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest
  return new Promise((resolve) => {
    const req = send(url, options, (res) => {
      const statusCode = res.statusCode ?? 0
      // Only the status matters; the body is dropped unread.
      res.destroy()
      if (statusCode >= 200 && statusCode < 300) {
        resolve({ statusCode, error: null, isSuccess: true })
      } else if (statusCode >= 300 && statusCode < 400) {
        resolve(failure(statusCode, 'redirects are not followed'))
      } else {
        resolve({ statusCode, error: null, isSuccess: false })
      }
    })
    req.on('error', (err) => {
      const isTimeout = err.name === 'AbortError' || err.name === 'TimeoutError'
      resolve(failure(null, isTimeout ? `no response within ${o.timeoutMs} ms` : err.message))
    })
    req.end(o.body)
  })
}

function failure(statusCode: number | null, error: string): WebhookResponse {
  return { statusCode, error, isSuccess: false }
}
