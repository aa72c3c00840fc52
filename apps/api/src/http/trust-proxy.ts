import { isIP } from 'node:net'
import { z } from 'zod'

/** Which proxies may set `X-Forwarded-For`: none, all, the first n hops, or these addresses. */
export type TrustProxy = boolean | number | string[]

/** Fastify's `trustProxy` option, built from a {@link TrustProxy} setting. */
export type FastifyTrustProxy = boolean | string[] | ((address: string, hop: number) => boolean)

// proxy-addr's names for the private ranges.
const NAMED_RANGES = ['loopback', 'linklocal', 'uniquelocal']
const MAX_HOPS = 32

/**
 * WEAVE_TRUST_PROXY: `true`/`false`, a hop count, or a comma list of addresses, CIDR ranges and
 * proxy-addr's names (`loopback`, `linklocal`, `uniquelocal`).
 */
export const TrustProxySetting = z.string().transform((text, ctx): TrustProxy => {
  const value = text.trim().toLowerCase()
  if (value === 'true') return true
  if (value === 'false' || value === '0') return false
  if (/^\d+$/.test(value)) {
    const hops = Number(value)
    if (hops <= MAX_HOPS) return hops
    ctx.issues.push({ code: 'custom', message: `a hop count is at most ${MAX_HOPS}`, input: text })
    return z.NEVER
  }
  const items = text
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '')
  const wrong = items.filter((item) => !isAddressOrRange(item))
  if (items.length === 0 || wrong.length > 0) {
    ctx.issues.push({
      code: 'custom',
      message:
        'must be true, false, a hop count, or a comma list of IP addresses and CIDR ranges' +
        (wrong.length > 0 ? ` (not an address or range: ${wrong.join(', ')})` : ''),
      input: text,
    })
    return z.NEVER
  }
  return items
})

/**
 * The `trustProxy` option Fastify takes. Fastify 5 trusts no hop at all for a bare number (it
 * cannot tell a proxy from a client that connects directly), so a hop count becomes "the nearest
 * n addresses are proxies", as Express reads it; listing the proxies' addresses is safer.
 */
export function fastifyTrustProxy(setting: TrustProxy): FastifyTrustProxy {
  if (typeof setting !== 'number') return setting
  return (_address, hop) => hop < setting
}

function isAddressOrRange(item: string): boolean {
  if (NAMED_RANGES.includes(item.toLowerCase())) return true
  const [address = '', prefix, ...rest] = item.split('/')
  const version = isIP(address)
  if (version === 0 || rest.length > 0) return false
  if (prefix === undefined) return true
  return /^\d{1,3}$/.test(prefix) && Number(prefix) <= (version === 4 ? 32 : 128)
}
