import { readFileSync } from 'node:fs'
import pg from 'pg'

// Linux reports a process's CPU time in clock ticks of 1/100 s (`getconf CLK_TCK`).
const TICK_MS = 10

/** CPU time used so far, in milliseconds, by each kind of process taking part. */
export interface CpuSnapshot {
  api: number
  workers: number
  /** Per Postgres backend connected to the benchmark's database, by pid. */
  postgres: Map<number, number>
  client: number
}

/** CPU milliseconds used between two snapshots, by kind of process. */
export interface CpuUse {
  api: number
  workers: number
  postgres: number
  client: number
}

/** The processes to account: Weave's, by pid, and its database, for the Postgres backends. */
export interface CpuSources {
  apiPid: number
  workerPids: readonly number[]
  databaseUrl: string
}

function processCpuMs(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    // Fields after the command name, which may itself hold spaces and parentheses.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    return (Number(fields[11]) + Number(fields[12])) * TICK_MS
  } catch {
    return Number.NaN
  }
}

/**
 * Reads the CPU time used so far by the API, the workers, this process and every Postgres
 * backend of the benchmark's database (from /proc; NaN where it is not readable).
 */
export async function cpuSnapshot(o: CpuSources): Promise<CpuSnapshot> {
  const client = new pg.Client({ connectionString: o.databaseUrl })
  await client.connect()
  let pids: number[]
  try {
    const { rows } = await client.query<{ pid: number }>(
      'SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()',
    )
    pids = rows.map((r) => r.pid)
  } finally {
    await client.end()
  }
  const usage = process.cpuUsage()
  return {
    api: processCpuMs(o.apiPid),
    workers: o.workerPids.reduce((sum, pid) => sum + processCpuMs(pid), 0),
    postgres: new Map(pids.map((pid) => [pid, processCpuMs(pid)])),
    client: (usage.user + usage.system) / 1000,
  }
}

/**
 * CPU used from `before` to `after`; a backend that connected in between counts from zero.
 * `ignoredBackends` are the benchmark's own connections to the database (its probes).
 */
export function cpuBetween(
  before: CpuSnapshot,
  after: CpuSnapshot,
  ignoredBackends: ReadonlySet<number> = new Set(),
): CpuUse {
  let postgres = 0
  for (const [pid, ms] of after.postgres) {
    if (ignoredBackends.has(pid)) continue
    const start = before.postgres.get(pid) ?? 0
    if (Number.isFinite(ms) && Number.isFinite(start)) postgres += ms - start
  }
  return {
    api: after.api - before.api,
    workers: after.workers - before.workers,
    postgres,
    client: after.client - before.client,
  }
}
