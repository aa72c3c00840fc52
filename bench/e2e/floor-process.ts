import { spawn, type ChildProcess } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { fileURLToPath } from 'node:url'
import pg from 'pg'
import type { CpuSources } from './cpu.js'
import { freePort } from './ports.js'
import {
  deleteQueueKeys,
  dropDatabase,
  JWT_ISSUER,
  JWT_SECRET,
  terminate,
  withDatabase,
} from './weave-processes.js'

const FLOOR = fileURLToPath(new URL('./floor.ts', import.meta.url))

/** The floor's process (floor.ts) and its database. */
export interface BenchFloor {
  baseUrl: string
  database: string
  cpu: CpuSources
  /** @throws Error when the floor's process exited on its own */
  assertRunning(): void
  /** Stops the process, then drops the database and deletes the queue keys. */
  stop(): Promise<void>
}

/**
 * Starts floor.ts in one process over a new database `floor_bench_e2e_<random>` and queue prefix,
 * accepting the same tokens as the benchmark's Weave.
 * @throws Error when it does not answer `/readyz` within 180 s
 */
export async function startFloor(o: {
  serverUrl: string
  redisUrl: string
  concurrency: number
  cpuProfileDir?: string
  log: (line: string) => void
}): Promise<BenchFloor> {
  const suffix = randomBytes(5).toString('hex')
  const database = `floor_bench_e2e_${suffix}`
  const databaseUrl = withDatabase(o.serverUrl, database)
  const queuePrefix = `bench-floor-${suffix}`
  const admin = new pg.Client({ connectionString: withDatabase(o.serverUrl, 'postgres') })
  await admin.connect()
  try {
    await admin.query(`CREATE DATABASE "${database}"`)
  } finally {
    await admin.end()
  }
  const port = await freePort()
  let child: ChildProcess | undefined
  let exited: string | undefined
  const stop = async (): Promise<void> => {
    if (child) await terminate(child)
    await dropDatabase(o.serverUrl, database)
    await deleteQueueKeys(o.redisUrl, queuePrefix)
  }
  try {
    o.log(`floor on port ${port} (database ${database})`)
    const profile =
      o.cpuProfileDir === undefined
        ? []
        : ['--cpu-prof', '--cpu-prof-dir', `${o.cpuProfileDir}/floor`]
    child = spawn(process.execPath, [...profile, '--import', 'tsx', FLOOR], {
      env: {
        ...process.env,
        PORT: String(port),
        FLOOR_DATABASE_URL: databaseUrl,
        REDIS_URL: o.redisUrl,
        FLOOR_QUEUE_PREFIX: queuePrefix,
        FLOOR_JWT_SECRET: JWT_SECRET,
        FLOOR_JWT_ISSUER: JWT_ISSUER,
        FLOOR_CONCURRENCY: String(o.concurrency),
      },
      stdio: ['ignore', 2, 2],
    })
    child.on('exit', (code, signal) => {
      exited = `floor (${code ?? signal})`
    })
    const baseUrl = `http://127.0.0.1:${port}`
    const deadline = Date.now() + 180_000
    while ((await fetch(`${baseUrl}/readyz`).catch(() => undefined))?.ok !== true) {
      if (exited) throw new Error(`exited while starting: ${exited}`)
      if (Date.now() > deadline) throw new Error('the floor was not ready within 180 s')
      await new Promise((r) => setTimeout(r, 200))
    }
    const pid = child.pid!
    return {
      baseUrl,
      database,
      cpu: { apiPid: pid, workerPids: [], databaseUrl },
      assertRunning() {
        if (exited) throw new Error(`exited unexpectedly: ${exited}`)
      },
      async stop() {
        exited ??= 'stopping'
        await stop()
      },
    }
  } catch (err) {
    await stop().catch(() => undefined)
    throw err
  }
}
