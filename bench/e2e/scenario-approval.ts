import { mdTable } from '../kernel/report.js'
import { pollRun, runEvents, type ApprovalView, type RunView } from './api-client.js'
import type { BenchContext } from './context.js'
import { isoDiffMs, medianP99, quantile } from './latency.js'
import { mapBounded } from './pool.js'
import type { Settings } from './settings.js'
import { startWaitSampler, waitTable, type WaitSample } from './wait-sampler.js'
import {
  APPROVAL_FIELDS,
  APPROVAL_GRAPH,
  APPROVAL_STEP,
  approvalSpec,
  assertCompleted,
  runInput,
} from './workload.js'

/** A run waiting on its approval. */
interface Waiting {
  runId: string
  approvalId: string
}

/** What one decided run measured. */
interface Decided {
  runId: string
  /** `finishedAt` of the run − `settledAt` of the approval, both from Postgres's clock. */
  serverMs: number
  /** From sending the decision to the GET that saw `completed`, on the client's clock. */
  clientMs: number
  /** The decision request's round trip, on the client's clock. */
  decideMs: number
}

/** A decided run's `approval.decided` → `run.resumed` → `run.completed` events (server clock). */
interface Split {
  resumeWaitMs: number
  resumedToDoneMs: number
}

async function splitTimes(ctx: BenchContext, runId: string): Promise<Split> {
  const events = await runEvents(ctx.starter, runId)
  const at = (type: string): string => {
    const event = events.findLast((e) => e.type === type)
    if (!event) throw new Error(`run ${runId} has no ${type} event`)
    return event.at
  }
  return {
    resumeWaitMs: isoDiffMs(at('approval.decided'), at('run.resumed')),
    resumedToDoneMs: isoDiffMs(at('run.resumed'), at('run.completed')),
  }
}

/** What scenario 2 measured of one target. */
export interface ApprovalResult {
  serial: Decided[]
  concurrent: Decided[]
  /** The runs' event splits, for a target that keeps run events. */
  serialSplit?: Split[]
  concurrentSplit?: Split[]
  waits: WaitSample
}

/**
 * Scenario 2: how long after an approval is decided its run completes. Runs of
 * `set → approval → set → set` are started until each waits on its approval; then another
 * subject decides them, first one at a time, then `approvalConcurrency` at once.
 * @throws Error when a run does not wait, does not complete, or lacks a field
 */
export async function scenarioApproval(
  ctx: BenchContext,
  hasEvents: boolean,
): Promise<ApprovalResult> {
  const { starter, approver, settings, log } = ctx
  const poll = { pollMs: settings.pollMs, assertRunning: ctx.assertRunning }
  await starter.call('POST', '/v1/graphs', 201, { name: APPROVAL_GRAPH, spec: approvalSpec() })

  const total = settings.approvalSerialRuns + settings.approvalRuns
  log(`approval: starting ${total} runs, ${settings.approvalConcurrency} at once, until each waits`)
  const waiting = await mapBounded(
    Array.from({ length: total }),
    settings.approvalConcurrency,
    async (): Promise<Waiting> => {
      const started = await starter.call<RunView>('POST', '/v1/runs', 202, {
        graph: APPROVAL_GRAPH,
        input: runInput(),
      })
      const { run } = await pollRun(
        starter,
        started.id,
        (r) => r.status === 'waiting' && r.pendingApprovals.length === 1,
        poll,
      )
      return { runId: run.id, approvalId: run.pendingApprovals[0]! }
    },
  )

  const decide = async ({ runId, approvalId }: Waiting): Promise<Decided> => {
    const sent = performance.now()
    const approval = await approver.call<ApprovalView>(
      'POST',
      `/v1/approvals/${approvalId}/decision`,
      200,
      { decision: 'approve', comment: 'bench' },
    )
    const decideMs = performance.now() - sent
    if (approval.status !== 'approved' || approval.settledAt === null) {
      throw new Error(`approval ${approvalId} is ${approval.status} after one approval`)
    }
    const seen = await pollRun(starter, runId, (r) => r.status === 'completed', poll)
    assertCompleted(runId, seen.run.state, APPROVAL_FIELDS)
    return {
      runId,
      serverMs: isoDiffMs(approval.settledAt, seen.run.finishedAt!),
      clientMs: seen.seenAt - sent,
      decideMs,
    }
  }

  const serialRuns = waiting.slice(0, settings.approvalSerialRuns)
  const concurrentRuns = waiting.slice(settings.approvalSerialRuns)
  log(`approval: deciding ${serialRuns.length} one at a time`)
  const serial = await mapBounded(serialRuns, 1, decide)
  log(`approval: deciding ${concurrentRuns.length}, ${settings.approvalConcurrency} at once`)
  const sampler = await startWaitSampler(ctx.cpu.databaseUrl)
  const concurrent = await mapBounded(concurrentRuns, settings.approvalConcurrency, decide)
  const waits = await sampler.stop()
  if (!hasEvents) return { serial, concurrent, waits }
  // Read after every decision, so these requests do not load Weave while runs are measured.
  const serialSplit = await mapBounded(serial, 4, (d) => splitTimes(ctx, d.runId))
  const concurrentSplit = await mapBounded(concurrent, 4, (d) => splitTimes(ctx, d.runId))
  return { serial, concurrent, serialSplit, concurrentSplit, waits }
}

/** The decided → completed p99 (ms) of one result, one at a time and at once. */
export function approvalP99s(r: ApprovalResult): { serial: number; concurrent: number } {
  return {
    serial: quantile(
      r.serial.map((d) => d.serverMs),
      0.99,
    ),
    concurrent: quantile(
      r.concurrent.map((d) => d.serverMs),
      0.99,
    ),
  }
}

/** Scenario 2's section of the report, a row per target and pace. */
export function approvalSection(
  results: readonly { label: string; result: ApprovalResult }[],
  settings: Settings,
): string {
  const row = (
    label: string,
    pace: string,
    d: readonly Decided[],
    split: readonly Split[] | undefined,
  ): string[] => [
    label,
    pace,
    String(d.length),
    `**${medianP99(d.map((x) => x.serverMs))}**`,
    medianP99(d.map((x) => x.clientMs)),
    medianP99(d.map((x) => x.decideMs)),
    split ? medianP99(split.map((x) => x.resumeWaitMs)) : 'n/a',
    split ? medianP99(split.map((x) => x.resumedToDoneMs)) : 'n/a',
  ]
  const withEvents = results.find((r) => r.result.serialSplit !== undefined)
  return [
    `### Scenario 2: approval decision → run completed (\`set → ${APPROVAL_STEP} → set → set\`)`,
    '',
    mdTable(
      [
        'system',
        'decisions',
        'runs',
        'decided → completed, server clock, ms (median / p99)',
        'decision sent → completed seen, client, ms (median / p99)',
        'decision request, ms (median / p99)',
        'decided → resumed (events), ms',
        'resumed → completed (events), ms',
      ],
      [
        ...results.map(({ label, result: r }) =>
          row(label, 'one at a time', r.serial, r.serialSplit),
        ),
        ...results.map(({ label, result: r }) =>
          row(label, `${settings.approvalConcurrency} at once`, r.concurrent, r.concurrentSplit),
        ),
      ],
    ),
    ...(withEvents
      ? [
          '',
          `${withEvents.label}: what Postgres's backends in a statement or a transaction were doing while decisions were ${settings.approvalConcurrency} at once (\`pg_stat_activity\` every 100 ms, ${withEvents.result.waits.samples} samples):`,
          '',
          waitTable(withEvents.result.waits),
        ]
      : []),
  ].join('\n')
}
