import { writeFile } from 'node:fs/promises'
import os from 'node:os'
import { DEFAULT_BENCH_URL, openBenchDb, POOL_SIZE, type BenchDb } from './db.js'
import { verdictTable, type ScenarioReport } from './report.js'
import { scenarioMemory } from './scenario-memory.js'
import { scenarioPause } from './scenario-pause.js'
import { scenarioPostgres } from './scenario-postgres.js'
import { provenance } from './provenance.js'
import { parseArgs } from './settings.js'
import { initialState } from './state.js'

const RESULTS = new URL('./RESULTS.md', import.meta.url)

function log(line: string): void {
  process.stderr.write(`${line}\n`)
}

function commandLine(args: readonly string[]): string {
  if (process.env.npm_lifecycle_event === 'kernel' && args.length === 0)
    return 'npm run bench:kernel'
  return ['node --import tsx kernel/run.ts', ...args].join(' ') + '   (in bench/)'
}

async function main(): Promise<void> {
  const args = process.argv.slice(2)
  const settings = parseArgs(args)
  const url = process.env.BENCH_DATABASE_URL ?? DEFAULT_BENCH_URL
  const started = new Date()
  const loadBefore = os.loadavg()
  const measured = await provenance(['@weave/kernel', '@weave/pgstore'])
  const wants = (k: 'a' | 'b' | 'c'): boolean => !settings.only || settings.only === k

  const reports: ScenarioReport[] = []
  if (wants('a')) reports.push(await scenarioMemory(settings, log))
  let db: BenchDb | undefined
  let serverVersion = 'not used'
  if (wants('b') || wants('c')) {
    db = await openBenchDb(url)
    serverVersion = db.serverVersion
  }
  try {
    if (db && wants('b')) reports.push(await scenarioPostgres(settings, db.pool, log))
    if (db && wants('c')) reports.push(await scenarioPause(settings, db.pool, log))
  } finally {
    await db?.pool.end()
  }

  const seconds = ((Date.now() - started.getTime()) / 1000).toFixed(0)
  const cpus = os.cpus()
  const database = new URL(url)
  database.password = ''
  const markdown = [
    '# bench/kernel results',
    '',
    `- date: ${started.toISOString()}`,
    `- command: \`${commandLine(args)}\` (${seconds} s)`,
    `- measured: ${measured}`,
    `- node ${process.version}, PostgreSQL ${serverVersion} at ${database.host}${database.pathname} (pool of ${POOL_SIZE})`,
    `- machine: ${cpus.length} cores (${cpus[0]?.model.trim() ?? 'unknown CPU'}), ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB, ${os.platform()} ${os.release()}`,
    `- load average (1 min) at start ${loadBefore[0]!.toFixed(1)}, at end ${os.loadavg()[0]!.toFixed(1)}: the machine is shared, so absolute figures vary between runs; the ratios are paired within rounds`,
    `- state: ${JSON.stringify(initialState()).length} bytes of JSON, 5 steps each adding one field`,
    `- ${settings.reps} rounds per scenario; slices of ${settings.sliceMs.a} ms (a), ${settings.sliceMs.b} ms (b), ${settings.sliceMs.c} ms (c); warm-up ${settings.warmupMs} ms per contender`,
    '',
    '## Goals',
    '',
    verdictTable(reports.flatMap((r) => r.verdicts)),
    '',
    '## Measurements',
    '',
    reports.map((r) => r.markdown).join('\n\n'),
    '',
  ].join('\n')
  process.stdout.write(markdown)
  if (!settings.quick && !settings.only) {
    await writeFile(RESULTS, markdown)
    log(`written to ${RESULTS.pathname}`)
  }
}

main().catch((err: unknown) => {
  log(err instanceof Error ? (err.stack ?? err.message) : String(err))
  process.exitCode = 1
})
