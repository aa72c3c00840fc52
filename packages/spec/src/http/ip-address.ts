import { isIP } from 'node:net'

type Bytes = number[]

function parseIPv4(text: string): Bytes | undefined {
  const parts = text.split('.')
  if (parts.length !== 4) return undefined
  const bytes = parts.map((p) => (/^\d{1,3}$/.test(p) ? Number(p) : NaN))
  return bytes.every((b) => b >= 0 && b <= 255) ? bytes : undefined
}

function parseIPv6(text: string): Bytes | undefined {
  let s = text.replace(/%.*$/, '')
  let tail: Bytes = []
  const lastColon = s.lastIndexOf(':')
  if (s.slice(lastColon + 1).includes('.')) {
    const v4 = parseIPv4(s.slice(lastColon + 1))
    if (!v4) return undefined
    tail = v4
    s = `${s.slice(0, lastColon + 1)}0:0`
  }
  const halves = s.split('::')
  if (halves.length > 2) return undefined
  const groups = (h: string) => (h === '' ? [] : h.split(':'))
  const head = groups(halves[0]!)
  const rest = halves.length === 2 ? groups(halves[1]!) : []
  const missing = 8 - head.length - rest.length
  if (halves.length === 2 ? missing < 1 : missing !== 0) return undefined
  const all = [...head, ...Array<string>(halves.length === 2 ? missing : 0).fill('0'), ...rest]
  const bytes: Bytes = []
  for (const g of all) {
    if (!/^[0-9a-f]{1,4}$/i.test(g)) return undefined
    const n = parseInt(g, 16)
    bytes.push(n >> 8, n & 0xff)
  }
  if (tail.length === 4) bytes.splice(12, 4, ...tail)
  return bytes
}

function within(bytes: Bytes, prefix: Bytes, bits: number): boolean {
  for (let i = 0; i < bits; i++) {
    const byte = i >> 3
    const mask = 0x80 >> (i & 7)
    if ((bytes[byte]! & mask) !== ((prefix[byte] ?? 0) & mask)) return false
  }
  return true
}

// Not reachable on the public internet: "this network", private, shared (CGNAT), loopback,
// link-local, protocol assignments, documentation, 6to4 relay, benchmarking, multicast, reserved.
const V4_BLOCKED: ReadonlyArray<[Bytes, number]> = [
  [[0, 0, 0, 0], 8],
  [[10, 0, 0, 0], 8],
  [[100, 64, 0, 0], 10],
  [[127, 0, 0, 0], 8],
  [[169, 254, 0, 0], 16],
  [[172, 16, 0, 0], 12],
  [[192, 0, 0, 0], 24],
  [[192, 0, 2, 0], 24],
  [[192, 88, 99, 0], 24],
  [[192, 168, 0, 0], 16],
  [[198, 18, 0, 0], 15],
  [[198, 51, 100, 0], 24],
  [[203, 0, 113, 0], 24],
  [[224, 0, 0, 0], 4],
  [[240, 0, 0, 0], 4],
]

function v6(...groups: number[]): Bytes {
  return groups.flatMap((g) => [g >> 8, g & 0xff])
}

// Only global unicast (2000::/3) is public, minus documentation prefixes; this excludes
// unspecified, loopback, IPv4-compatible, discard, unique-local, link-local, site-local and
// multicast addresses at once.
const V6_GLOBAL = v6(0x2000)
const V6_DOCUMENTATION: ReadonlyArray<[Bytes, number]> = [
  [v6(0x2001, 0xdb8), 32],
  [v6(0x3fff), 20],
]

// Prefixes whose addresses carry an IPv4 address, judged by that address: IPv4-mapped,
// NAT64 well-known prefix (last 4 bytes), 6to4 (bytes 2-5).
const V4_MAPPED = v6(0, 0, 0, 0, 0, 0xffff)
const NAT64 = v6(0x64, 0xff9b)
const SIX_TO_FOUR = v6(0x2002)

function isPublicV4(bytes: Bytes): boolean {
  return !V4_BLOCKED.some(([prefix, bits]) => within(bytes, prefix, bits))
}

function isPublicV6(bytes: Bytes): boolean {
  if (within(bytes, V4_MAPPED, 96) || within(bytes, NAT64, 96)) {
    return isPublicV4(bytes.slice(12))
  }
  if (within(bytes, SIX_TO_FOUR, 16)) return isPublicV4(bytes.slice(2, 6))
  if (!within(bytes, V6_GLOBAL, 3)) return false
  return !V6_DOCUMENTATION.some(([prefix, bits]) => within(bytes, prefix, bits))
}

/**
 * Whether an IP address is publicly routable: false for private, loopback, link-local,
 * unique-local, multicast, unspecified and reserved addresses, IPv4 and IPv6 alike, including
 * IPv4 addresses embedded in IPv6 (mapped, NAT64, 6to4). Anything unparsable is not public.
 */
export function isPublicAddress(address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, '')
  const family = isIP(bare.replace(/%.*$/, ''))
  if (family === 4) {
    const bytes = parseIPv4(bare)
    return bytes !== undefined && isPublicV4(bytes)
  }
  if (family === 6) {
    const bytes = parseIPv6(bare)
    return bytes !== undefined && isPublicV6(bytes)
  }
  return false
}
