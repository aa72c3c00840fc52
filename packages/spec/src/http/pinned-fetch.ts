import { request as httpRequest, type IncomingMessage, type RequestOptions } from 'node:http'
import { request as httpsRequest } from 'node:https'
import { isIP, type LookupFunction } from 'node:net'
import { Readable } from 'node:stream'
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib'

type LookupAnswer = { address: string; family: number }

// Answers every resolution of this connection with the addresses already checked, so a DNS
// answer that changes between the egress check and the connect cannot reach another address.
function pinnedLookup(addresses: readonly string[]): LookupFunction {
  const all: LookupAnswer[] = addresses.map((address) => ({ address, family: isIP(address) }))
  return (_hostname, options, callback) => {
    if (options.all) {
      ;(callback as (err: null, all: LookupAnswer[]) => void)(null, all)
      return
    }
    const first = all[0]!
    callback(null, first.address, first.family)
  }
}

// Statuses whose response never has a body (Fetch standard), so Response must get null.
const NULL_BODY_STATUSES = new Set([204, 205, 304])

// What the platform fetch sends when the caller does not say, kept so that moving a caller onto
// the pinned transport does not change what servers see.
const DEFAULT_HEADERS: Readonly<Record<string, string>> = {
  accept: '*/*',
  'accept-encoding': 'gzip, deflate, br',
  'user-agent': 'node',
}

function decoded(res: IncomingMessage): Readable {
  const encoding = res.headers['content-encoding']?.trim().toLowerCase()
  if (encoding === 'gzip' || encoding === 'x-gzip') return res.pipe(createGunzip())
  if (encoding === 'deflate') return res.pipe(createInflate())
  if (encoding === 'br') return res.pipe(createBrotliDecompress())
  return res
}

function toResponse(res: IncomingMessage, method: string): Response {
  const status = res.statusCode ?? 0
  const headers = new Headers()
  const raw = res.rawHeaders
  for (let i = 0; i + 1 < raw.length; i += 2) headers.append(raw[i]!, raw[i + 1]!)
  if (method === 'HEAD' || NULL_BODY_STATUSES.has(status)) {
    res.resume()
    return new Response(null, { status, statusText: res.statusMessage ?? '', headers })
  }
  const source = decoded(res)
  // A decoder does not see the response's own errors (a reset mid-body): pass them on.
  if (source !== res) res.on('error', (err) => source.destroy(err))
  const body = Readable.toWeb(source) as ReadableStream<Uint8Array>
  return new Response(body, { status, statusText: res.statusMessage ?? '', headers })
}

function requestBody(body: RequestInit['body']): string | Uint8Array | undefined {
  if (body === undefined || body === null) return undefined
  if (typeof body === 'string' || body instanceof Uint8Array) return body
  throw new TypeError('the pinned fetch sends only string or byte bodies')
}

function send(url: URL, init: RequestInit, lookup: LookupFunction): Promise<Response> {
  const method = init.method ?? 'GET'
  const body = requestBody(init.body)
  const headers: Record<string, string> = { ...DEFAULT_HEADERS }
  new Headers(init.headers).forEach((value, key) => (headers[key] = value))
  if (body !== undefined) headers['content-length'] = String(Buffer.byteLength(body))
  const signal = init.signal ?? undefined
  const options: RequestOptions = {
    method,
    headers,
    lookup,
    // A fresh connection per request: a pooled socket would skip the pinned lookup.
    agent: false,
    ...(signal ? { signal } : {}),
  }
  const request = url.protocol === 'https:' ? httpsRequest : httpRequest
  return new Promise((resolve, reject) => {
    const req = request(url, options, (res) => {
      try {
        resolve(toResponse(res, method))
      } catch (err) {
        res.destroy()
        reject(new TypeError('fetch failed', { cause: err }))
      }
    })
    req.on('error', (err) => {
      // Like fetch: an abort rejects with the signal's reason, anything else is a TypeError.
      reject(
        signal?.aborted ? (signal.reason as Error) : new TypeError('fetch failed', { cause: err }),
      )
    })
    req.end(body)
  })
}

/**
 * A `fetch` that connects only to `addresses` (the ones an egress check approved), whatever the
 * URL's host resolves to by then. TLS still verifies, and the Host header still names, the URL's
 * host. It takes a URL (not a Request) and a string or byte body, follows no redirect, and
 * decodes gzip, deflate and br bodies.
 * @throws TypeError when `addresses` is empty or holds something that is not an IP address.
 */
export function createPinnedFetch(addresses: readonly string[]): typeof fetch {
  if (addresses.length === 0 || addresses.some((a) => isIP(a) === 0)) {
    throw new TypeError('a pinned fetch needs one or more IP addresses')
  }
  const lookup = pinnedLookup(addresses)
  return async (input, init = {}) => {
    if (input instanceof Request) throw new TypeError('the pinned fetch takes a URL, not a Request')
    const url = input instanceof URL ? input : new URL(input)
    return send(url, init, lookup)
  }
}
