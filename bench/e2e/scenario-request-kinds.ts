import pg from 'pg'
import { fmt, mdTable } from '../kernel/report.js'
import { median } from '../kernel/stats.js'
import { concurrentSlice, rotate } from '../kernel/timing.js'
import { pollRun, type RunView } from './api-client.js'
import type { BenchContext } from './context.js'
import { cpuBetween, cpuSnapshot, type CpuUse } from './cpu.js'
import type { Settings } from './settings.js'
import type { Target } from './scenario-throughput.js'
import { LINEAR_GRAPH, runInput } from './workload.js'

/** One measured phase of one kind of request: how many, and the CPU they used. */
interface KindPhase {
  requests: number
  perSecond: number
  cpu: CpuUse
}

type Kind = 'get' | 'start'

const KIND_LABEL: Record<Kind, string> = {
  get: '`GET /v1/runs/{id}` of a completed run',
  start: "`POST /v1/runs` and the run's execution, no polls",
}

// The benchmark's probe of the runs it started, left out of the CPU it reports.
async function openProbe(ctx: BenchContext): Promise<{ client: pg.Client; pid: number }> {
  const client = new pg.Client({ connectionString: ctx.cpu.databaseUrl })
  await client.connect()
  const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')
  return { client, pid: rows[0]!.pid }
}

async function completedRun(ctx: BenchContext): Promise<string> {
  const run = await ctx.starter.call<RunView>('POST', '/v1/runs', 202, {
    graph: LINEAR_GRAPH,
    input: runInput(),
  })
  await pollRun(ctx.starter, run.id, (r) => r.status === 'completed', {
    pollMs: ctx.settings.pollMs,
    assertRunning: ctx.assertRunning,
  })
  return run.id
}

/** `clients` clients GET one completed run back to back for `ms`. */
async function getPhase(ctx: BenchContext, runId: string, ms: number): Promise<KindPhase> {
  const before = await cpuSnapshot(ctx.cpu)
  const slice = await concurrentSlice(
    () => ctx.starter.call('GET', `/v1/runs/${runId}`, 200),
    ms,
    ctx.settings.clients,
  )
  const cpu = cpuBetween(before, await cpuSnapshot(ctx.cpu))
  return { requests: slice.ops, perSecond: (slice.ops / slice.ms) * 1000, cpu }
}

/**
 * `clients` clients start runs back to back for `ms` without polling them; the phase ends when
 * the last of them is completed, seen by the probe's reads of the runs table (its backend's CPU
 * is left out).
 */
async function startPhase(ctx: BenchContext, ms: number): Promise<KindPhase> {
  const probe = await openProbe(ctx)
  try {
    const ids: string[] = []
    const before = await cpuSnapshot(ctx.cpu)
    const began = performance.now()
    const slice = await concurrentSlice(
      async () => {
        const run = await ctx.starter.call<RunView>('POST', '/v1/runs', 202, {
          graph: LINEAR_GRAPH,
          input: runInput(),
        })
        ids.push(run.id)
      },
      ms,
      ctx.settings.clients,
    )
    const deadline = performance.now() + 120_000
    for (;;) {
      const { rows } = await probe.client.query<{ left: number }>(
        `SELECT count(*)::int AS left FROM runs WHERE id = ANY($1::uuid[]) AND status <> 'completed'`,
        [ids],
      )
      if (rows[0]!.left === 0) break
      ctx.assertRunning()
      if (performance.now() > deadline) throw new Error(`${rows[0]!.left} runs did not complete`)
      await new Promise((r) => setTimeout(r, 20))
    }
    const cpu = cpuBetween(before, await cpuSnapshot(ctx.cpu), new Set([probe.pid]))
    return {
      requests: slice.ops,
      perSecond: (slice.ops / (performance.now() - began)) * 1000,
      cpu,
    }
  } finally {
    await probe.client.end()
  }
}

/**
 * Scenario 3: the CPU each kind of request costs every process, for Weave and the floor in turns
 * (their order rotating each round): `clients` clients sending only GETs of a completed run, then
 * only starts, whose runs execute meanwhile and are waited for without polls. A throughput run's
 * CPU is about one start with its execution plus its GETs per run times one GET.
 * Returns the report's section.
 * @throws Error when a run does not complete within 120 s of the phase's end
 */
export async function scenarioRequestKinds(
  targets: readonly Target[],
  settings: Settings,
  log: (line: string) => void,
): Promise<string> {
  const runIds = new Map<string, string>()
  for (const t of targets) runIds.set(t.label, await completedRun(t.ctx))
  const phases = new Map<string, KindPhase[]>()
  const record = (label: string, kind: Kind, p: KindPhase): void => {
    const key = `${label}/${kind}`
    phases.set(key, [...(phases.get(key) ?? []), p])
  }
  for (let round = 0; round < settings.rounds; round++) {
    for (const t of rotate(targets, round)) {
      log(`request kinds round ${round + 1}/${settings.rounds}: ${t.label}`)
      record(t.label, 'get', await getPhase(t.ctx, runIds.get(t.label)!, settings.kindGetMs))
      record(t.label, 'start', await startPhase(t.ctx, settings.kindStartMs))
    }
  }
  const perRequest = (ps: KindPhase[], f: (u: CpuUse) => number): number =>
    median(ps.map((p) => (f(p.cpu) / p.requests) * 1000))
  const rows: string[][] = []
  for (const kind of ['get', 'start'] as const) {
    for (const t of targets) {
      const ps = phases.get(`${t.label}/${kind}`)!
      rows.push([
        t.label,
        KIND_LABEL[kind],
        String(ps.reduce((a, p) => a + p.requests, 0)),
        fmt(median(ps.map((p) => p.perSecond))),
        fmt(perRequest(ps, (u) => u.api)),
        fmt(perRequest(ps, (u) => u.workers)),
        fmt(perRequest(ps, (u) => u.postgres)),
        `**${fmt(perRequest(ps, (u) => u.api + u.workers + u.postgres))}**`,
        fmt(perRequest(ps, (u) => u.client)),
      ])
    }
  }
  return [
    '### Scenario 3: what each kind of request costs',
    '',
    `CPU µs per request from /proc, median of ${settings.rounds} round(s), ${settings.clients} clients: ${settings.kindGetMs / 1000} s of GETs, then ${settings.kindStartMs / 1000} s of starts and the time their runs took to complete. "server total" leaves out the benchmark's client:`,
    '',
    mdTable(
      [
        'system',
        'request',
        'requests',
        'per second (median)',
        'API (floor: its one process)',
        'workers',
        'Postgres',
        'server total',
        'client',
      ],
      rows,
    ),
  ].join('\n')
}
