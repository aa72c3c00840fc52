import { spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { createServer } from 'node:net'
import { Redis } from 'ioredis'

/** A throwaway `redis-server` of one test file, safe to FLUSHALL. */
export interface PrivateRedis {
  url: string
  /** A client of this server (for FLUSHALL and inspection). */
  client: Redis
  stop(): Promise<void>
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
 * Starts `redis-server` on a free port without persistence (nothing survives a restart or a
 * FLUSHALL), and waits until it answers PING.
 */
export async function startPrivateRedis(): Promise<PrivateRedis> {
  const port = await freePort()
  const child: ChildProcess = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    { stdio: 'ignore' },
  )
  const url = `redis://127.0.0.1:${port}`
  const client = new Redis(url, { lazyConnect: true, retryStrategy: () => 50 })
  client.on('error', () => undefined)
  const deadline = Date.now() + 10_000
  for (;;) {
    if (child.exitCode !== null) throw new Error(`redis-server exited (${child.exitCode})`)
    if ((await client.ping().catch(() => undefined)) === 'PONG') break
    if (Date.now() > deadline) {
      child.kill('SIGKILL')
      throw new Error('redis-server did not answer within 10 s')
    }
    await new Promise((r) => setTimeout(r, 50))
  }
  return {
    url,
    client,
    async stop() {
      client.disconnect()
      if (child.exitCode !== null || child.signalCode !== null) return
      const exited = once(child, 'exit')
      child.kill('SIGTERM')
      await exited
    },
  }
}
