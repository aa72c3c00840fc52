import { writeFile } from 'node:fs/promises'
import os from 'node:os'
import { mintDevToken } from '@weave/api'
import { fmt, mdTable } from '../kernel/report.js'
import { median } from '../kernel/stats.js'
import { apiClient } from './api-client.js'
import type { BenchContext } from './context.js'
import type { CpuSources } from './cpu.js'
import { startFloor, type BenchFloor } from './floor-process.js'
import { startBenchPostgres } from './private-postgres.js'
import { provenance } from './provenance.js'
import { countRoundTrips, statementTable, type RoundTrips } from './round-trips.js'
import {
  approvalP99s,
  approvalSection,
  scenarioApproval,
  type ApprovalResult,
} from './scenario-approval.js'
import { scenarioRequestKinds } from './scenario-request-kinds.js'
import { scenarioThroughput, type Target, type ThroughputResult } from './scenario-throughput.js'
import { parseArgs, type Settings } from './settings.js'
import { JWT_ISSUER, JWT_SECRET, startWeave, type BenchWeave } from './weave-processes.js'
import { runInput } from './workload.js'

const RESULTS = new URL('./RESULTS.md', import.meta.url)
const TENANT = 'bench'
const SCOPES = ['graphs:read', 'graphs:write', 'runs:read', 'runs:write', 'approvals:read']

function log(line: string): void {
  process.stderr.write(`${line}\n`)
}

function commandLine(args: readonly string[]): string {
  if (process.env.npm_lifecycle_event === 'e2e' && args.length === 0) return 'npm run bench:e2e'
  return ['node --import tsx e2e/run.ts', ...args].join(' ') + '   (in bench/)'
}

function load(): string {
  return os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(' / ')
}

function token(subject: string, scopes: readonly string[]): Promise<string> {
  return mintDevToken({
    secret: JWT_SECRET,
    tenant: TENANT,
    subject,
    scopes,
    audience: 'weave',
    issuer: JWT_ISSUER,
    expiresIn: '1h',
  })
}

function settingsLines(s: Settings, weave: BenchWeave, floor: BenchFloor, pg: string): string[] {
  const env = Object.entries(weave.settings)
    .filter(([k]) => k !== 'PORT' && k !== 'HOST')
    .map(([k, v]) => `${k}=${v}`)
    .join(', ')
  return [
    `- Postgres: a private cluster \`${pg}\` created for the run (server defaults, plus pg_stat_statements with \`track = top\`), dropped after`,
    `- Weave: 1 \`weave api\` and ${s.workers} \`weave worker\` processes (through the CLI), database \`${weave.database}\`, ${env}`,
    `- floor: \`bench/e2e/floor.ts\`, one process (node:http, BullMQ with concurrency ${s.workers * s.workerConcurrency}, pg pool of 20), database \`${floor.database}\``,
    `- workload: ${JSON.stringify(runInput()).length} bytes of JSON input; every \`set\` step adds one small field; history of checkpoints: Weave's default (all)`,
    `- scenario 1: warm-up ${s.warmupMs / 1000} s with ${s.clients} clients per system (discarded) and an \`ANALYZE\` of its database, then ${s.rounds} round(s), each: ${s.throughputMs / 1000} s with ${s.clients} clients and ${s.singleMs / 1000} s with 1, the systems alternating phase by phase (order rotated each round); completion seen by polling \`GET /v1/runs/{id}\` every ${s.pollMs} ms`,
    `- scenario 2, Weave then the floor: ${s.approvalSerialRuns + s.approvalRuns} runs started ${s.approvalConcurrency} at once until each waits; ${s.approvalSerialRuns} decided one at a time, then ${s.approvalRuns} decided ${s.approvalConcurrency} at once; completion polled every ${s.pollMs} ms`,
    `- scenario 3: ${s.rounds} round(s), the systems in turns (order rotated each round), each: ${s.clients} clients sending GETs of one completed run for ${s.kindGetMs / 1000} s, then starts for ${s.kindStartMs / 1000} s whose runs are waited for without polls`,
  ]
}

interface Figures {
  throughput: ThroughputResult
  approvals: { label: string; result: ApprovalResult }[]
  trips: { label: string; trips: RoundTrips }[]
}

/**
 * A ratio whose goal is "at least 0.5": cut, not rounded, to three decimals, so that a ratio that
 * misses the goal never reads as 0.500.
 */
function ratioAgainstFloor(ratio: number): string {
  return (Math.floor(ratio * 1000) / 1000).toFixed(3)
}

function goalsSection(f: Figures, s: Settings): string {
  const rate = (label: string, c: number): number =>
    median(f.throughput.runsPerSecond.get(label)!.get(c)!)
  const cpu = (label: string, c: number): number =>
    median(f.throughput.cpuPerRun.get(label)!.get(c)!)
  const trips = (label: string): RoundTrips => f.trips.find((t) => t.label === label)!.trips
  const p99 = (label: string) => approvalP99s(f.approvals.find((a) => a.label === label)!.result)
  const yes = (ok: boolean): string => (ok ? '**met**' : '**missed**')
  const rows: string[][] = []
  for (const c of [s.clients, 1]) {
    const [w, fl] = [rate(WEAVE, c), rate(FLOOR, c)]
    rows.push([
      `runs/s, ${c} client(s) (median of rounds)`,
      fmt(w),
      fmt(fl),
      ratioAgainstFloor(w / fl),
      '≥ 0.5× the floor',
      yes(w / fl >= 0.5),
    ])
  }
  const [tw, tf] = [trips(WEAVE), trips(FLOOR)]
  rows.push([
    'SQL round trips per 5-step run (started over the API, completed)',
    fmt(tw.perRun),
    fmt(tf.perRun),
    fmt(tw.perRun / tf.perRun),
    '≤ 15',
    yes(tw.perRun <= 15),
  ])
  rows.push([
    'SQL round trips per GET of a run',
    fmt(tw.perGet),
    fmt(tf.perGet),
    fmt(tw.perGet / tf.perGet),
    '≤ 2',
    yes(tw.perGet <= 2),
  ])
  const [pw, pf] = [p99(WEAVE), p99(FLOOR)]
  rows.push([
    'decided → completed p99, one at a time, ms',
    fmt(pw.serial),
    fmt(pf.serial),
    fmt(pw.serial / pf.serial),
    '≤ 50 ms',
    yes(pw.serial <= 50),
  ])
  rows.push([
    `decided → completed p99, ${s.approvalConcurrency} at once, ms`,
    fmt(pw.concurrent),
    fmt(pf.concurrent),
    fmt(pw.concurrent / pf.concurrent),
    '≤ 250 ms',
    yes(pw.concurrent <= 250),
  ])
  for (const c of [s.clients, 1]) {
    const [w, fl] = [cpu(WEAVE, c), cpu(FLOOR, c)]
    rows.push([
      `CPU ms per completed run, all server processes incl. Postgres, ${c} client(s)`,
      fmt(w),
      fmt(fl),
      fmt(w / fl),
      '≤ 15 ms',
      yes(w <= 15),
    ])
  }
  return [
    '### Weave against the floor, and the goals of issue 11',
    '',
    mdTable(['figure', WEAVE, FLOOR, `ratio ${WEAVE} / ${FLOOR}`, 'goal', 'verdict'], rows),
    '',
    `Background statements (also sent while no run was in flight, over as long a window; already subtracted above, each statement at most as often as the runs sent it): ${fmt(tw.backgroundPerRun)} per run for ${WEAVE}, ${fmt(tf.backgroundPerRun)} for the ${FLOOR}.`,
  ].join('\n')
}

const WEAVE = 'Weave'
const FLOOR = 'floor'

async function main(): Promise<void> {
  const args = process.argv.slice(2)
  const settings = parseArgs(args)
  const started = new Date()
  const loadBefore = load()
  const measured = await provenance()
  const redisUrl = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379'
  log('creating a private Postgres cluster with pg_stat_statements')
  const cluster = await startBenchPostgres()
  let sections: string[]
  let header: string[]
  let serverVersion: string
  try {
    const weave = await startWeave({
      serverUrl: cluster.url,
      redisUrl,
      workers: settings.workers,
      workerConcurrency: settings.workerConcurrency,
      ...(settings.cpuProfileDir === undefined ? {} : { cpuProfileDir: settings.cpuProfileDir }),
      log,
    })
    serverVersion = weave.serverVersion
    try {
      const floor = await startFloor({
        serverUrl: cluster.url,
        redisUrl,
        concurrency: settings.workers * settings.workerConcurrency,
        ...(settings.cpuProfileDir === undefined ? {} : { cpuProfileDir: settings.cpuProfileDir }),
        log,
      })
      try {
        const contextOf = async (baseUrl: string, cpu: CpuSources, assertRunning: () => void) =>
          ({
            starter: apiClient(baseUrl, await token('bench-starter', SCOPES)),
            approver: apiClient(baseUrl, await token('bench-approver', ['approvals:decide'])),
            settings,
            cpu,
            assertRunning,
            log,
          }) satisfies BenchContext
        const targets: Target[] = [
          {
            label: WEAVE,
            ctx: await contextOf(weave.baseUrl, weave.cpu, () => weave.assertRunning()),
            hasEvents: true,
          },
          {
            label: FLOOR,
            ctx: await contextOf(floor.baseUrl, floor.cpu, () => floor.assertRunning()),
            hasEvents: false,
          },
        ]
        const throughput = await scenarioThroughput(targets, settings, log)
        const approvals: Figures['approvals'] = []
        for (const t of targets) {
          log(`approval: ${t.label}`)
          approvals.push({ label: t.label, result: await scenarioApproval(t.ctx, t.hasEvents) })
        }
        const requestKinds = await scenarioRequestKinds(targets, settings, log)
        const trips: Figures['trips'] = []
        for (const [t, database] of [
          [targets[0]!, weave.database],
          [targets[1]!, floor.database],
        ] as const) {
          log(`round trips: ${t.label}`)
          trips.push({
            label: t.label,
            trips: await countRoundTrips(cluster.url, database, t.ctx.starter),
          })
        }
        const figures: Figures = { throughput, approvals, trips }
        header = settingsLines(settings, weave, floor, cluster.name)
        sections = [
          goalsSection(figures, settings),
          throughput.section,
          approvalSection(approvals, settings),
          requestKinds,
          [
            '### SQL round trips',
            '',
            ...trips.flatMap(({ label, trips: t }) => [statementTable(label, t), '']),
          ].join('\n'),
        ]
      } finally {
        await floor.stop()
      }
    } finally {
      await weave.stop()
    }
  } finally {
    await cluster.remove()
  }

  const seconds = ((Date.now() - started.getTime()) / 1000).toFixed(0)
  const cpus = os.cpus()
  const markdown = [
    '# bench/e2e results',
    '',
    `- date: ${started.toISOString()}`,
    `- command: \`${commandLine(args)}\` (${seconds} s)`,
    `- measured: ${measured}`,
    `- node ${process.version}, PostgreSQL ${serverVersion}, Redis at ${new URL(redisUrl).host}`,
    `- machine: ${cpus.length} cores (${cpus[0]?.model.trim() ?? 'unknown CPU'}), ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB, ${os.platform()} ${os.release()}; the benchmark's client, Weave's processes, the floor, Postgres and Redis all run on it`,
    `- load average (1 / 5 / 15 min) at start ${loadBefore}, at end ${load()}: the machine is shared, so absolute figures vary between runs; the ratios compare phases run next to each other`,
    ...header,
    '',
    ...sections.flatMap((s) => [s, '']),
  ].join('\n')
  process.stdout.write(markdown)
  if (!settings.quick) {
    await writeFile(RESULTS, markdown)
    log(`written to ${RESULTS.pathname}`)
  }
}

main().catch((err: unknown) => {
  log(err instanceof Error ? (err.stack ?? err.message) : String(err))
  process.exitCode = 1
})
