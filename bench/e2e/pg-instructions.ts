import { execFile, spawn } from 'node:child_process'
import { once } from 'node:events'
import { mkdtemp, rm } from 'node:fs/promises'
import os from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import pg from 'pg'
import { fmt } from '../kernel/report.js'
import {
  WEAVE_CALLS,
  assertDriverCalls,
  driverSql,
  registerGraphSql,
  type DriverCalls,
} from './pg-instructions-driver.js'
import { startBenchPostgres } from './private-postgres.js'
import { provenance } from './provenance.js'
import { withDatabase } from './weave-processes.js'

/**
 * How many instructions Postgres executes for one run's database work, counted by valgrind's
 * callgrind in a single-user backend: a count that does not depend on the machine's load, which
 * moves the timed figures of `run.ts` by ±10% from one run to the next. It creates a private
 * cluster, migrates a database with `weave migrate`, registers the linear graph, creates the
 * driver (pg-instructions-driver.ts) and runs it for WARM runs over a connection; then, with the
 * cluster stopped, runs `bench_runs(FEW)` and `bench_runs(MANY)` in `postgres --single` under
 * callgrind. (MANY − FEW) runs' instructions, divided by their number, is one run's cost after
 * every plan is cached. Instructions are not time: a cache miss or a system call costs more than
 * its count says. The driver's own loop is in the count too, the same for every version of Weave.
 *
 * `npm run bench:pg-instructions [-- -- --keep DIR] [--step-writes N] [--reads N]`: DIR keeps the
 * two callgrind files, for `callgrind_annotate --inclusive=yes`. `--step-writes` and `--reads`
 * set how many of those calls each run makes (Weave makes 5 and 2): the difference between two
 * counts is what the added calls cost. Needs valgrind and, as `pg_createcluster` does, root or
 * the `postgres` user (root runs the backend as `postgres`).
 */

const exec = promisify(execFile)
const ROOT = fileURLToPath(new URL('../../', import.meta.url))
const VERSION = '15'
const DATABASE = 'weave_pg_instructions'
const WARM = 300
const FEW = 50
const MANY = 150

function log(line: string): void {
  process.stderr.write(`${line}\n`)
}

async function migrate(databaseUrl: string): Promise<void> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'apps/cli/src/main.ts', 'migrate'], {
    cwd: ROOT,
    env: { ...process.env, DATABASE_URL: databaseUrl, LOG_LEVEL: 'warn' },
    stdio: ['ignore', 2, 2],
  })
  const [code] = (await once(child, 'exit')) as [number | null]
  if (code !== 0) throw new Error(`weave migrate exited with ${code}`)
}

async function prepare(databaseUrl: string, calls: DriverCalls): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl })
  await client.connect()
  try {
    await client.query(registerGraphSql())
    await client.query(driverSql(calls))
    await client.query(`CALL bench_runs(${WARM})`)
    await client.query('ANALYZE')
  } finally {
    await client.end()
  }
}

/** Runs `bench_runs(runs)` in a single-user backend under callgrind: its instruction count. */
async function countInstructions(cluster: string, runs: number, out: string): Promise<number> {
  const backend = [
    'valgrind',
    '--tool=callgrind',
    `--callgrind-out-file=${out}`,
    `/usr/lib/postgresql/${VERSION}/bin/postgres`,
    '--single',
    '-D',
    `/var/lib/postgresql/${VERSION}/${cluster}`,
    '-c',
    `config_file=/etc/postgresql/${VERSION}/${cluster}/postgresql.conf`,
    DATABASE,
  ]
  const [command, ...args] =
    os.userInfo().username === 'postgres'
      ? backend
      : ['runuser', '-u', 'postgres', '--', ...backend]
  const child = spawn(command!, args, { stdio: ['pipe', 'ignore', 'pipe'] })
  let stderr = ''
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
  child.stdin.end(`CALL bench_runs(${runs});\n`)
  const [code] = (await once(child, 'exit')) as [number | null]
  const collected = /Collected : (\d+)/.exec(stderr)
  if (code !== 0 || collected === null || /ERROR:/.test(stderr)) {
    throw new Error(`the single-user backend failed (exit ${code}):\n${stderr.slice(-2000)}`)
  }
  return Number(collected[1])
}

/** The value after `flag` on the command line, or undefined when the flag is absent. */
function flagValue(flag: string): string | undefined {
  const at = process.argv.indexOf(flag)
  return at >= 0 ? process.argv[at + 1] : undefined
}

/**
 * The calls per run the command line asks for.
 * @throws Error for a count that is not a whole number
 */
function driverCalls(): DriverCalls {
  const count = (flag: string, fallback: number): number => {
    const text = flagValue(flag)
    if (text === undefined) return fallback
    if (!/^\d+$/.test(text)) throw new Error(`${flag} needs a whole number, not ${text}`)
    return Number(text)
  }
  return {
    stepWrites: count('--step-writes', WEAVE_CALLS.stepWrites),
    reads: count('--reads', WEAVE_CALLS.reads),
  }
}

/** How the counted calls compare with those Weave makes per run, for the report. */
function callsNote(calls: DriverCalls): string {
  const isWeaves = calls.stepWrites === WEAVE_CALLS.stepWrites && calls.reads === WEAVE_CALLS.reads
  return isWeaves ? "Weave's own" : `Weave makes ${WEAVE_CALLS.stepWrites} and ${WEAVE_CALLS.reads}`
}

async function main(): Promise<void> {
  const keep = flagValue('--keep')
  const calls = driverCalls()
  // Checked before a cluster is made.
  assertDriverCalls(calls)
  const measured = await provenance()
  const cluster = await startBenchPostgres()
  const scratch = await mkdtemp(join(os.tmpdir(), 'weave-pg-instructions-'))
  try {
    const databaseUrl = withDatabase(cluster.url, DATABASE)
    log(`weave migrate (${DATABASE} on the private cluster ${cluster.name})`)
    await migrate(databaseUrl)
    log(`${WARM} runs to fill the tables, then ANALYZE`)
    await prepare(databaseUrl, calls)
    await exec('pg_ctlcluster', [VERSION, cluster.name, 'stop'])
    // The backend runs as postgres, which must be able to write the profiles.
    await exec('chmod', ['a+rwx', scratch])
    const counts: number[] = []
    for (const runs of [FEW, MANY]) {
      log(`callgrind: bench_runs(${runs}) in a single-user backend`)
      counts.push(await countInstructions(cluster.name, runs, join(scratch, `runs-${runs}.out`)))
    }
    if (keep !== undefined) await exec('cp', ['-r', `${scratch}/.`, keep])
    const [few, many] = counts as [number, number]
    const perRun = (many - few) / (MANY - FEW)
    process.stdout.write(
      [
        `- measured: ${measured}`,
        `- per run: ${calls.stepWrites} step writes and ${calls.reads} reads (${callsNote(calls)})`,
        `- ${fmt(few / 1e6)} M instructions for ${FEW} runs, ${fmt(many / 1e6)} M for ${MANY} (a backend's start and first plans included in both)`,
        `- **${fmt(perRun / 1e6)} M instructions per run** (the difference over ${MANY - FEW} runs)`,
        '',
      ].join('\n'),
    )
  } finally {
    await rm(scratch, { recursive: true, force: true })
    await cluster.remove()
  }
}

await main()
