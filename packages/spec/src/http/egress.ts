import { lookup as dnsLookup } from 'node:dns/promises'
import { isIP } from 'node:net'
import { isPublicAddress } from './ip-address.js'

/** Resolves a host name to its IP addresses. */
export type LookupAll = (host: string) => Promise<string[]>

interface AllowEntry {
  host: string
  wildcard: boolean
  port?: string
}

/** The outbound HTTP policy of a compiled graph. */
export interface EgressPolicy {
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

/**
 * Builds the egress policy: only http(s); the host must match `allow` (host names,
 * `*.example.com` for any subdomain, `host:port`; empty allows every public host); and every
 * address the host resolves to must be public unless the host is listed exactly (a wildcard
 * never unlocks private addresses).
 * @throws TypeError for an unparsable allow-list entry.
 */
export function createEgressPolicy(allow: ReadonlyArray<string>, lookup?: LookupAll): EgressPolicy {
  const entries = allow.map(parseEntry)
  const resolve = lookup ?? defaultLookup
  return {
    async check(url) {
      if (url.protocol !== 'http:' && url.protocol !== 'https:') {
        return `scheme "${url.protocol.replace(/:$/, '')}" is not allowed (http or https only)`
      }
      if (url.username !== '' || url.password !== '')
        return 'credentials in the URL are not allowed'
      const host = url.hostname.replace(/\.$/, '')
      const port = effectivePort(url)
      const matching = entries.filter(
        (e) =>
          (e.port === undefined || e.port === port) &&
          (e.wildcard ? host.endsWith(`.${e.host}`) : host === e.host),
      )
      if (entries.length > 0 && matching.length === 0) {
        return `host "${url.host}" is not in the http allow list`
      }
      if (matching.some((e) => !e.wildcard)) return undefined
      const addresses = isIP(bare(host)) !== 0 ? [bare(host)] : await resolve(host)
      if (addresses.length === 0) return `host "${host}" has no address`
      const refused = addresses.find((a) => !isPublicAddress(a))
      if (refused !== undefined) {
        return `host "${host}" resolves to the non-public address ${refused}; list it in the http allow list to call it`
      }
      return undefined
    },
  }
}
