import { randomInt } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { createServer } from 'node:net'

// Linux's default start of the ephemeral range, where /proc does not say.
const DEFAULT_EPHEMERAL_LOW = 32768
// Below this the range left for servers would be too small to pick from at random.
const LOWEST_USEFUL = 11000

/**
 * A free port for a server a test stops and starts again, chosen below the kernel's ephemeral
 * range. A port the OS handed out (`listen(0)`, an outgoing connection's local port) comes from
 * that range, so while the server is down no other test's listener or client can take its port
 * and make the restart fail with "address already in use".
 * @throws Error when no free port is found
 */
export async function restartablePort(): Promise<number> {
  const high = ephemeralLow()
  const low = Math.max(LOWEST_USEFUL, high - 12000)
  for (let attempt = 0; attempt < 50; attempt++) {
    const port = randomInt(low, high)
    if (await isFree(port)) return port
  }
  throw new Error(`no free port between ${low} and ${high}`)
}

function ephemeralLow(): number {
  try {
    const [low] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8')
      .trim()
      .split(/\s+/)
      .map(Number)
    if (low !== undefined && Number.isInteger(low) && low > LOWEST_USEFUL + 1000) return low
  } catch {
    // Not Linux, or /proc is not mounted: assume the default range.
  }
  return DEFAULT_EPHEMERAL_LOW
}

async function isFree(port: number): Promise<boolean> {
  const server = createServer()
  return new Promise((resolve) => {
    server.once('error', () => resolve(false))
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)))
  })
}
