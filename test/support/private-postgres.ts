import { execFile, spawnSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { promisify } from 'node:util'
import pg from 'pg'
import { restartablePort } from './restartable-port.js'

const run = promisify(execFile)

/**
 * A throwaway Postgres cluster of one test file (Debian's postgresql-common), safe to stop and
 * restart: the shared server on 5432 is never touched.
 */
export interface PrivatePostgres {
  /** The cluster's name, as `pg_lsclusters` shows it. */
  name: string
  port: number
  /** `postgres://postgres@127.0.0.1:<port>/postgres`, trusted without a password. */
  url: string
  /** Starts the cluster when it is down and waits until it answers; a no-op when it is up. */
  start(): Promise<void>
  /**
   * Stops the cluster (`fast` by default: open connections are cut, as a failover does; an
   * `immediate` stop is a crash). Until `start`, connecting is refused.
   */
  stop(o?: { mode?: StopMode }): Promise<void>
  /** Stops and starts the cluster, then waits until it answers. */
  restart(o?: { mode?: StopMode }): Promise<void>
  /** Stops the cluster and deletes it: its data, configuration and log. Safe to call twice. */
  remove(): Promise<void>
}

/** How `pg_ctlcluster` stops the server. */
export type StopMode = 'smart' | 'fast' | 'immediate'

/** Options of {@link startPrivatePostgres}. */
export interface PrivatePostgresOptions {
  /** The start of the cluster's name, e.g. the test file's; a random suffix makes it unique. */
  stem: string
  /** The installed major version (default 15). */
  version?: string
}

/**
 * Creates a cluster on a free port with trust authentication (`pg_createcluster`), starts it and
 * waits until it answers. The caller must `remove()` it; should the process exit first, it is
 * dropped on the way out.
 * @throws Error with the command's output when a cluster command fails
 */
export async function startPrivatePostgres(o: PrivatePostgresOptions): Promise<PrivatePostgres> {
  const version = o.version ?? '15'
  // pg_createcluster accepts letters, digits, '-' and '_' in a name.
  const name = `${o.stem.replace(/[^A-Za-z0-9_-]/g, '_')}-${randomBytes(4).toString('hex')}`
  const port = await restartablePort()
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`
  // A vitest worker that dies between creation and remove() must not leave a server running.
  const dropOnExit = () => {
    spawnSync('pg_dropcluster', ['--stop', version, name], { stdio: 'ignore' })
  }
  process.once('exit', dropOnExit)
  let isRunning = false
  let isRemoved = false

  const ctl = async (action: 'start' | 'stop' | 'restart', mode?: StopMode) => {
    await runCommand('pg_ctlcluster', [...(mode ? ['-m', mode] : []), version, name, action])
  }
  const cluster: PrivatePostgres = {
    name,
    port,
    url,
    async start() {
      if (isRunning) return
      await ctl('start')
      isRunning = true
      await waitUntilAnswering(url)
    },
    async stop({ mode = 'fast' } = {}) {
      if (!isRunning) return
      await ctl('stop', mode)
      isRunning = false
    },
    async restart({ mode = 'fast' } = {}) {
      // Stop and start rather than `restart`, so `isRunning` stays true only while it is.
      await cluster.stop({ mode })
      await cluster.start()
    },
    async remove() {
      if (isRemoved) return
      isRemoved = true
      isRunning = false
      try {
        await runCommand('pg_dropcluster', ['--stop', version, name])
      } finally {
        process.removeListener('exit', dropOnExit)
      }
    },
  }

  try {
    // fsync off: these clusters live for one test file and no test crashes the machine itself.
    await runCommand('pg_createcluster', [
      version,
      name,
      '-p',
      String(port),
      '-o',
      'fsync=off',
      '--',
      '--auth=trust',
    ])
    await cluster.start()
  } catch (err) {
    await cluster.remove().catch(() => undefined)
    throw err
  }
  return cluster
}

/**
 * Runs a postgresql-common command as the current user: run as root, the commands create the
 * cluster for, and run its server as, the `postgres` user themselves (no `runuser` needed).
 */
async function runCommand(command: string, args: string[]): Promise<void> {
  try {
    await run(command, args, { timeout: 60_000 })
  } catch (err) {
    const { stdout, stderr } = err as { stdout?: string; stderr?: string }
    throw new Error(`${command} ${args.join(' ')} failed: ${stderr || stdout || String(err)}`, {
      cause: err,
    })
  }
}

async function waitUntilAnswering(url: string): Promise<void> {
  const deadline = Date.now() + 30_000
  let last: unknown
  for (;;) {
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2_000 })
    client.on('error', () => undefined)
    try {
      await client.connect()
      await client.query('SELECT 1')
      return
    } catch (err) {
      last = err
    } finally {
      await client.end().catch(() => undefined)
    }
    if (Date.now() > deadline) {
      throw new Error(`Postgres at ${url} did not answer within 30 s`, { cause: last })
    }
    await new Promise((r) => setTimeout(r, 100))
  }
}
