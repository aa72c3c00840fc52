import { lookup as dnsLookup } from 'node:dns/promises'
import { isIP } from 'node:net'
import { isPublicAddress } from './ip-address.js'
import { createPinnedFetch } from './pinned-fetch.js'

/** Resolves a host name to its IP addresses. */
export type LookupAll = (host: string) => Promise<string[]>

interface AllowEntry {
  host: string
  wildcard: boolean
  port?: string
}

/**
 * What the egress policy decided for one URL. An allowed call carries the addresses that were
 * checked and a `fetch` pinned to them: use it for the call, so the connection goes to an
 * address the policy saw, not to whatever a second DNS answer says.
 */
export type EgressDecision =
  | { isAllowed: true; addresses: string[]; fetch: typeof fetch }
  | { isAllowed: false; reason: string }

/** The outbound HTTP policy of a compiled graph. */
export interface EgressPolicy {
  /**
   * Resolves the host of `url` once and decides whether it may be called.
   * @throws the lookup's error when the host does not resolve.
   */
  decide(url: URL): Promise<EgressDecision>
  /**
   * Why `url` may not be called, or undefined when it may.
   * @throws the lookup's error when the host does not resolve.
   */
  check(url: URL): Promise<string | undefined>
}

function bare(host: string): string {
  return host.replace(/^\[|\]$/g, '')
}

function parseEntry(raw: string): AllowEntry {
  let s = raw.trim().toLowerCase().replace(/\.$/, '')
  const wildcard = s.startsWith('*.')
  if (wildcard) s = s.slice(2)
  let port: string | undefined
  const withPort = /^(\[[^\]]+\]|[^:[\]]+):(\d{1,5})$/.exec(s)
  if (withPort) {
    s = withPort[1]!
    port = withPort[2]!
  }
  if (isIP(s) === 6) s = `[${s}]`
  let host: string
  try {
    // The URL parser canonicalises hosts the same way it does the step's URL.
    host = new URL(`http://${s}/`).hostname
  } catch {
    throw new TypeError(`invalid http allow-list entry "${raw}"`)
  }
  if (s === '' || (wildcard && isIP(bare(host)) !== 0)) {
    throw new TypeError(`invalid http allow-list entry "${raw}"`)
  }
  return port === undefined ? { host, wildcard } : { host, wildcard, port }
}

function effectivePort(url: URL): string {
  return url.port || (url.protocol === 'https:' ? '443' : '80')
}

async function defaultLookup(host: string): Promise<string[]> {
  const found = await dnsLookup(host, { all: true, verbatim: true })
  return found.map((a) => a.address)
}

function refused(reason: string): EgressDecision {
  return { isAllowed: false, reason }
}

/**
 * Builds the egress policy: only http(s); the host must match `allow` (host names,
 * `*.example.com` for any subdomain, `host:port`; empty allows every public host); and every
 * address the host resolves to must be public unless the host is listed exactly (a wildcard
 * never unlocks private addresses). The host is resolved once per decision, listed or not, so
 * the call can be pinned to the addresses decided on.
 * @throws TypeError for an unparsable allow-list entry.
 */
export function createEgressPolicy(allow: ReadonlyArray<string>, lookup?: LookupAll): EgressPolicy {
  const entries = allow.map(parseEntry)
  const resolve = lookup ?? defaultLookup
  async function decide(url: URL): Promise<EgressDecision> {
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      return refused(
        `scheme "${url.protocol.replace(/:$/, '')}" is not allowed (http or https only)`,
      )
    }
    if (url.username !== '' || url.password !== '') {
      return refused('credentials in the URL are not allowed')
    }
    const host = url.hostname.replace(/\.$/, '')
    const port = effectivePort(url)
    const matching = entries.filter(
      (e) =>
        (e.port === undefined || e.port === port) &&
        (e.wildcard ? host.endsWith(`.${e.host}`) : host === e.host),
    )
    if (entries.length > 0 && matching.length === 0) {
      return refused(`host "${url.host}" is not in the http allow list`)
    }
    const addresses = isIP(bare(host)) !== 0 ? [bare(host)] : await resolve(host)
    if (addresses.length === 0) return refused(`host "${host}" has no address`)
    const notAnAddress = addresses.find((a) => isIP(a) === 0)
    if (notAnAddress !== undefined) {
      return refused(`host "${host}" resolves to "${notAnAddress}", which is not an IP address`)
    }
    if (!matching.some((e) => !e.wildcard)) {
      const nonPublic = addresses.find((a) => !isPublicAddress(a))
      if (nonPublic !== undefined) {
        return refused(
          `host "${host}" resolves to the non-public address ${nonPublic}; list it in the http allow list to call it`,
        )
      }
    }
    return { isAllowed: true, addresses, fetch: createPinnedFetch(addresses) }
  }
  return {
    decide,
    async check(url) {
      const decision = await decide(url)
      return decision.isAllowed ? undefined : decision.reason
    },
  }
}
