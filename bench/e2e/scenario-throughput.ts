import os from 'node:os'
import { fmt, mdTable } from '../kernel/report.js'
import { median } from '../kernel/stats.js'
import { concurrentSlice, perSecond, rotate } from '../kernel/timing.js'
import { analyzeDatabase } from './analyze.js'
import { pollRun, runEvents, type RunView } from './api-client.js'
import type { BenchContext } from './context.js'
import { cpuBetween, cpuSnapshot, type CpuUse } from './cpu.js'
import { isoDiffMs, medianP99 } from './latency.js'
import { mapBounded } from './pool.js'
import type { Settings } from './settings.js'
import { startWaitSampler, waitTable, type WaitSample } from './wait-sampler.js'
import { assertCompleted, LINEAR_FIELDS, LINEAR_GRAPH, linearSpec, runInput } from './workload.js'

/** One measured phase: `clients` clients starting runs back to back for a fixed time. */
interface Phase {
  clients: number
  runs: number
  seconds: number
  runsPerSecond: number
  /** `finishedAt − createdAt` of each run, both from Postgres's clock. */
  serverMs: number[]
  /** From sending `POST /v1/runs` to the GET that saw `completed`, on the client's clock. */
  clientMs: number[]
  polls: number
  runIds: string[]
  cpu: CpuUse
  waits: WaitSample
}

// Runs whose events are read after the measurement to split their time (not during it).
const SAMPLE = 100

/** A system the benchmark drives: Weave, or the floor it is compared with. */
export interface Target {
  label: string
  ctx: BenchContext
  /** Whether it keeps run events (`GET /v1/runs/{id}/events`), to split a run's time. */
  hasEvents: boolean
}

async function phase(ctx: BenchContext, clients: number, ms: number): Promise<Phase> {
  const { starter, settings, log } = ctx
  const serverMs: number[] = []
  const clientMs: number[] = []
  const runIds: string[] = []
  let polls = 0
  const oneRun = async (): Promise<void> => {
    const sent = performance.now()
    const started = await starter.call<RunView>('POST', '/v1/runs', 202, {
      graph: LINEAR_GRAPH,
      input: runInput(),
    })
    const seen = await pollRun(starter, started.id, (r) => r.status === 'completed', {
      pollMs: settings.pollMs,
      assertRunning: ctx.assertRunning,
    })
    assertCompleted(started.id, seen.run.state, LINEAR_FIELDS)
    serverMs.push(isoDiffMs(seen.run.createdAt, seen.run.finishedAt!))
    clientMs.push(seen.seenAt - sent)
    polls += seen.polls
    runIds.push(started.id)
  }
  const before = await cpuSnapshot(ctx.cpu)
  const sampler = await startWaitSampler(ctx.cpu.databaseUrl)
  const slice = await concurrentSlice(oneRun, ms, clients)
  const waits = await sampler.stop()
  const cpu = cpuBetween(before, await cpuSnapshot(ctx.cpu))
  const runsPerSecond = perSecond(slice)
  log(
    `  ${clients} client(s): ${slice.ops} runs in ${fmt(slice.ms / 1000)} s = ${fmt(runsPerSecond)} runs/s`,
  )
  return {
    clients,
    runs: slice.ops,
    seconds: slice.ms / 1000,
    runsPerSecond,
    serverMs,
    clientMs,
    polls,
    runIds,
    cpu,
    waits,
  }
}

/** What scenario 1 measured of each target, by client count, one entry per round. */
export interface ThroughputResult {
  /** Runs per second, by target label, then by client count: one value per round. */
  runsPerSecond: Map<string, Map<number, number[]>>
  /** CPU ms per completed run (all processes, client excluded), likewise. */
  cpuPerRun: Map<string, Map<number, number[]>>
  section: string
}

/**
 * Scenario 1: completed runs per second of the 5-step `set` graph with `clients` clients and with
 * one, each client starting a run with `POST /v1/runs` and polling `GET /v1/runs/{id}` until it
 * is `completed` before starting the next. The targets alternate phase by phase (their order
 * rotating each round), so a change of the machine's load falls on both.
 * @throws Error when a run does not complete or lacks a step's field
 */
export async function scenarioThroughput(
  targets: readonly Target[],
  settings: Settings,
  log: (line: string) => void,
): Promise<ThroughputResult> {
  for (const t of targets) {
    await t.ctx.starter.call('POST', '/v1/graphs', 201, { name: LINEAR_GRAPH, spec: linearSpec() })
  }
  for (const t of targets) {
    log(`throughput: ${t.label} warm-up ${settings.warmupMs} ms with ${settings.clients} clients`)
    await phase(t.ctx, settings.clients, settings.warmupMs)
    await analyzeDatabase(t.ctx.cpu.databaseUrl)
  }
  const phases = new Map<string, Phase[]>(targets.map((t) => [t.label, []]))
  for (let round = 0; round < settings.rounds; round++) {
    for (const [clients, ms] of [
      [settings.clients, settings.throughputMs],
      [1, settings.singleMs],
    ] as const) {
      for (const t of rotate(targets, round)) {
        log(`throughput round ${round + 1}/${settings.rounds}: ${t.label}, ${clients} client(s)`)
        phases.get(t.label)!.push(await phase(t.ctx, clients, ms))
      }
    }
  }
  const byClients = (label: string, clients: number): Phase[] =>
    phases.get(label)!.filter((p) => p.clients === clients)
  const perRound = (f: (p: Phase) => number): Map<string, Map<number, number[]>> =>
    new Map(
      targets.map((t) => [
        t.label,
        new Map([settings.clients, 1].map((c) => [c, byClients(t.label, c).map(f)] as const)),
      ]),
    )
  const cpuOf = (p: Phase): number => (p.cpu.api + p.cpu.workers + p.cpu.postgres) / p.runs
  const runsPerSecond = perRound((p) => p.runsPerSecond)
  const cpuPerRun = perRound(cpuOf)

  // Split the time of the last phase of each client count, read after every phase.
  const splits: string[][] = []
  for (const t of targets.filter((x) => x.hasEvents)) {
    for (const c of [settings.clients, 1]) {
      const last = byClients(t.label, c).at(-1)!
      splits.push(splitRow(c, await splitTimes(t.ctx, last.runIds.slice(-SAMPLE))))
    }
  }

  const row = (label: string, c: number): string[] => {
    const ps = byClients(label, c)
    const rates = ps.map((p) => p.runsPerSecond)
    const runs = ps.reduce((a, p) => a + p.runs, 0)
    return [
      label,
      String(c),
      rates.map(fmt).join(', '),
      `**${fmt(median(rates))}**`,
      String(runs),
      medianP99(ps.flatMap((p) => p.serverMs)),
      medianP99(ps.flatMap((p) => p.clientMs)),
      fmt(ps.reduce((a, p) => a + p.polls, 0) / runs),
    ]
  }
  const cpuRow = (label: string, c: number): string[] => {
    const ps = byClients(label, c)
    const sum = (f: (u: CpuUse) => number): number => ps.reduce((a, p) => a + f(p.cpu), 0)
    const runs = ps.reduce((a, p) => a + p.runs, 0)
    const seconds = ps.reduce((a, p) => a + p.seconds, 0)
    const [api, workers, postgres, client] = [
      sum((u) => u.api),
      sum((u) => u.workers),
      sum((u) => u.postgres),
      sum((u) => u.client),
    ]
    return [
      label,
      String(c),
      ...[api, workers, postgres].map((ms) => fmt(ms / runs)),
      `**${fmt((api + workers + postgres) / runs)}**`,
      fmt(client / runs),
      `${fmt((api + workers + postgres + client) / (seconds * 1000))} of ${os.cpus().length}`,
    ]
  }
  const rows = (f: (label: string, c: number) => string[]): string[][] =>
    [settings.clients, 1].flatMap((c) => targets.map((t) => f(t.label, c)))
  const weave = targets.find((t) => t.hasEvents)
  const lastMany = weave ? byClients(weave.label, settings.clients).at(-1) : undefined
  const section = [
    '### Scenario 1: throughput of a 5-step graph of `set` steps',
    '',
    mdTable(
      [
        'system',
        'clients',
        'runs/s per round',
        'runs/s (median of rounds)',
        'runs completed',
        'start → completed, server clock, ms (median / p99)',
        'POST sent → completed seen, client, ms (median / p99)',
        'GETs per run',
      ],
      rows(row),
    ),
    '',
    'CPU time per completed run, ms, from /proc (Postgres: the backends connected to the system\'s database); "server total" leaves out the benchmark\'s client:',
    '',
    mdTable(
      [
        'system',
        'clients',
        'API (floor: its one process)',
        'workers',
        'Postgres',
        'server total',
        'client',
        'cores busy (all / wall time)',
      ],
      rows(cpuRow),
    ),
    ...(weave && lastMany
      ? [
          '',
          `${weave.label}: where the time went, from the events of the last ${SAMPLE} runs (or fewer) of the last phase of each client count (server clock, ms, median / p99):`,
          '',
          mdTable(
            [
              'clients',
              'runs read',
              'queued → started (queue wait)',
              'started → completed (5 steps)',
              'steps per run',
            ],
            splits,
          ),
          '',
          `${weave.label}: what Postgres's backends in a statement or a transaction were doing in the last phase with ${lastMany.clients} clients (\`pg_stat_activity\` every 100 ms, ${lastMany.waits.samples} samples):`,
          '',
          waitTable(lastMany.waits),
        ]
      : []),
  ].join('\n')
  return { runsPerSecond, cpuPerRun, section }
}

function splitRow(clients: number, split: Split): string[] {
  return [
    String(clients),
    String(split.runs),
    medianP99(split.waitMs),
    medianP99(split.execMs),
    fmt(median(split.steps)),
  ]
}

interface Split {
  runs: number
  waitMs: number[]
  execMs: number[]
  steps: number[]
}

async function splitTimes(ctx: BenchContext, runIds: readonly string[]): Promise<Split> {
  const parts = await mapBounded(runIds, 4, async (id) => {
    const events = await runEvents(ctx.starter, id)
    const at = (type: string): string => {
      const event = events.find((e) => e.type === type)
      if (!event) throw new Error(`run ${id} has no ${type} event`)
      return event.at
    }
    return {
      wait: isoDiffMs(at('run.queued'), at('run.started')),
      exec: isoDiffMs(at('run.started'), at('run.completed')),
      steps: events.filter((e) => e.type === 'step.completed').length,
    }
  })
  return {
    runs: parts.length,
    waitMs: parts.map((p) => p.wait),
    execMs: parts.map((p) => p.exec),
    steps: parts.map((p) => p.steps),
  }
}
