import { spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { createServer } from 'node:net'
import { Redis } from 'ioredis'
import { restartablePort } from './restartable-port.js'

/** A throwaway `redis-server` of one test file, safe to FLUSHALL. */
export interface PrivateRedis {
  url: string
  /** A client of this server (for FLUSHALL and inspection). */
  client: Redis
  /** Stops the server; until `start`, connecting is refused. */
  stop(): Promise<void>
  /**
   * Starts the server again on the same port, empty (nothing is persisted), and waits until it
   * answers PING; a no-op while it runs.
   */
  start(): Promise<void>
}

/** A port nothing listens on right now. */
export async function freePort(): Promise<number> {
  const server = createServer()
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const address = server.address()
  server.close()
  if (address === null || typeof address === 'string') throw new Error('no port')
  return address.port
}

/**
 * Starts `redis-server` on a free port (kept free while it is down: see restartablePort) without persistence (nothing survives a restart or a
 * FLUSHALL), and waits until it answers PING.
 */
export async function startPrivateRedis(): Promise<PrivateRedis> {
  const port = await restartablePort()
  const url = `redis://127.0.0.1:${port}`
  const client = new Redis(url, { lazyConnect: true, retryStrategy: () => 50 })
  client.on('error', () => undefined)
  let child = await spawnServer(port, client)
  const isRunning = () => child.exitCode === null && child.signalCode === null
  return {
    url,
    client,
    async stop() {
      client.disconnect()
      if (!isRunning()) return
      const exited = once(child, 'exit')
      child.kill('SIGTERM')
      await exited
    },
    async start() {
      if (isRunning()) return
      child = await spawnServer(port, client)
    },
  }
}

async function spawnServer(port: number, client: Redis): Promise<ChildProcess> {
  const child: ChildProcess = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    { stdio: 'ignore' },
  )
  // A client that `stop` disconnected connects again.
  if (client.status === 'end') client.connect().catch(() => undefined)
  const deadline = Date.now() + 10_000
  for (;;) {
    if (child.exitCode !== null) throw new Error(`redis-server exited (${child.exitCode})`)
    if ((await client.ping().catch(() => undefined)) === 'PONG') return child
    if (Date.now() > deadline) {
      child.kill('SIGKILL')
      throw new Error('redis-server did not answer within 10 s')
    }
    await new Promise((r) => setTimeout(r, 50))
  }
}
