import { execFile, spawnSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { promisify } from 'node:util'
import pg from 'pg'
import { freePort } from './ports.js'

const run = promisify(execFile)
const VERSION = '15'

/** A Postgres cluster of one benchmark run, with pg_stat_statements loaded. */
export interface BenchPostgres {
  name: string
  /** `postgres://postgres@127.0.0.1:<port>/postgres`, trusted without a password. */
  url: string
  /** Stops the cluster and deletes it; safe to call twice. */
  remove(): Promise<void>
}

/**
 * Creates and starts a private cluster (`pg_createcluster`, trust authentication) that counts
 * top-level statements per database in pg_stat_statements, BEGIN and COMMIT included. Its other
 * settings are the server's defaults, as on the shared server. Should the process exit before
 * `remove()`, the cluster is dropped on the way out.
 * @throws Error with the command's output when a cluster command fails
 */
export async function startBenchPostgres(): Promise<BenchPostgres> {
  const name = `weave-bench-e2e-${randomBytes(4).toString('hex')}`
  const port = await freePort()
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`
  const dropOnExit = (): void => {
    spawnSync('pg_dropcluster', ['--stop', VERSION, name], { stdio: 'ignore' })
  }
  process.once('exit', dropOnExit)
  let isRemoved = false
  const cluster: BenchPostgres = {
    name,
    url,
    async remove() {
      if (isRemoved) return
      isRemoved = true
      try {
        await command('pg_dropcluster', ['--stop', VERSION, name])
      } finally {
        process.removeListener('exit', dropOnExit)
      }
    },
  }
  try {
    await command('pg_createcluster', [
      VERSION,
      name,
      '-p',
      String(port),
      '-o',
      'shared_preload_libraries=pg_stat_statements',
      '-o',
      'pg_stat_statements.track=top',
      '-o',
      'pg_stat_statements.max=10000',
      '-o',
      'max_connections=200',
      '--',
      '--auth=trust',
    ])
    await command('pg_ctlcluster', [VERSION, name, 'start'])
    await waitUntilAnswering(url)
    const client = new pg.Client({ connectionString: url })
    await client.connect()
    try {
      await client.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements')
    } finally {
      await client.end()
    }
  } catch (err) {
    await cluster.remove().catch(() => undefined)
    throw err
  }
  return cluster
}

async function command(name: string, args: string[]): Promise<void> {
  try {
    await run(name, args, { timeout: 60_000 })
  } catch (err) {
    const { stdout, stderr } = err as { stdout?: string; stderr?: string }
    throw new Error(`${name} ${args.join(' ')} failed: ${stderr || stdout || String(err)}`, {
      cause: err,
    })
  }
}

async function waitUntilAnswering(url: string): Promise<void> {
  const deadline = Date.now() + 30_000
  for (;;) {
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2_000 })
    client.on('error', () => undefined)
    try {
      await client.connect()
      await client.query('SELECT 1')
      return
    } catch (err) {
      if (Date.now() > deadline) throw new Error(`${url} did not answer in 30 s`, { cause: err })
    } finally {
      await client.end().catch(() => undefined)
    }
    await new Promise((r) => setTimeout(r, 100))
  }
}
