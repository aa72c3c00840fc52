import os from 'node:os'
import { fmt, mdTable } from '../kernel/report.js'
import { median } from '../kernel/stats.js'
import { concurrentSlice, perSecond } from '../kernel/timing.js'
import { pollRun, runEvents, type RunView } from './api-client.js'
import type { BenchContext } from './context.js'
import { cpuBetween, cpuSnapshot, type CpuUse } from './cpu.js'
import { isoDiffMs, medianP99 } from './latency.js'
import { mapBounded } from './pool.js'
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

/**
 * Scenario 1: completed runs per second of the 5-step `set` graph with `clients` clients and with
 * one, each client starting a run with `POST /v1/runs` and polling `GET /v1/runs/{id}` until it
 * is `completed` before starting the next.
 * @throws Error when a run does not complete or lacks a step's field
 */
export async function scenarioThroughput(ctx: BenchContext): Promise<string> {
  const { starter, settings, log } = ctx
  await starter.call('POST', '/v1/graphs', 201, { name: LINEAR_GRAPH, spec: linearSpec() })

  const phase = async (clients: number, ms: number): Promise<Phase> => {
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

  log(`throughput: warm-up ${settings.warmupMs} ms with ${settings.clients} clients`)
  await phase(settings.clients, settings.warmupMs)
  log(`throughput: ${settings.throughputMs} ms with ${settings.clients} clients`)
  const many = await phase(settings.clients, settings.throughputMs)
  log(`throughput: ${settings.singleMs} ms with 1 client`)
  const one = await phase(1, settings.singleMs)
  // Read after both phases, so these requests do not load Weave while runs are measured.
  const splitMany = await splitTimes(ctx, many.runIds.slice(-SAMPLE))
  const splitOne = await splitTimes(ctx, one.runIds.slice(-SAMPLE))

  const row = (p: Phase): string[] => [
    String(p.clients),
    String(p.runs),
    fmt(p.seconds),
    `**${fmt(p.runsPerSecond)}**`,
    medianP99(p.serverMs),
    medianP99(p.clientMs),
    fmt(p.polls / p.runs),
  ]
  const cpuRow = (p: Phase): string[] => {
    const { api, workers, postgres, client } = p.cpu
    const total = api + workers + postgres + client
    return [
      String(p.clients),
      ...[api, workers, postgres, client, total].map((ms) => fmt(ms / p.runs)),
      `${fmt(total / (p.seconds * 1000))} of ${os.cpus().length}`,
    ]
  }
  return [
    '### Scenario 1: throughput of a 5-step graph of `set` steps',
    '',
    mdTable(
      [
        'clients',
        'runs completed',
        'seconds',
        'runs/s',
        'start → completed, server clock, ms (median / p99)',
        'POST sent → completed seen, client, ms (median / p99)',
        'GETs per run',
      ],
      [row(many), row(one)],
    ),
    '',
    'CPU time per completed run, ms, from /proc (Postgres: the backends connected to the benchmark database):',
    '',
    mdTable(
      [
        'clients',
        'API',
        'workers',
        'Postgres',
        'client',
        'total',
        'cores busy (total / wall time)',
      ],
      [cpuRow(many), cpuRow(one)],
    ),
    '',
    `Where the time went, from the events of the last ${SAMPLE} runs (or fewer) of each phase (server clock, ms, median / p99):`,
    '',
    mdTable(
      [
        'clients',
        'runs read',
        'queued → started (queue wait)',
        'started → completed (5 steps)',
        'steps per run',
      ],
      [splitRow(many.clients, splitMany), splitRow(one.clients, splitOne)],
    ),
    '',
    `What Postgres's backends in a statement or a transaction were doing with ${many.clients} clients (\`pg_stat_activity\` every 100 ms, ${many.waits.samples} samples):`,
    '',
    waitTable(many.waits),
  ].join('\n')
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
