import { randomBytes, randomUUID } from 'node:crypto'
import { context, ROOT_CONTEXT, trace, TraceFlags, type SpanContext } from '@opentelemetry/api'
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { createDb, saveStepCheckpoint, type Database, type StepCheckpoint } from '@weave/db'
import { recordStatements } from '../../../test/support/statement-recorder.js'
import { MAX_SHARED_CHECKPOINT_CHARS } from '../src/step-write-statements.js'
import {
  claimedRun as claimedStepRun,
  stepWrite as writeOfStep,
  type ClaimedRun,
} from './step-writes.js'
import { type TestDatabase, createTestDatabase } from './test-database.js'

// Step writes of different runs that are due while others are in flight share one statement
// (weave_save_steps). Each must land exactly as it would alone: its checkpoint rows, its event
// with the run's next seq, its webhook delivery with its own trace parent, its run's counters;
// a refusal (a lost claim, a checkpoint behind) is its own write's, and the others still commit.

let t: TestDatabase
let database: Database
const statements: string[] = []
const secretsKey = randomBytes(32)
const WRITES = 8

beforeAll(async () => {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable())
  t = await createTestDatabase('weave_db_step_batch')
})

afterAll(async () => {
  context.disable()
  await t?.drop()
})

// A pool of its own per test, so writes queue behind the ones this test sends and no other.
beforeEach(() => {
  statements.length = 0
  database = createDb({ connectionString: t.url, max: WRITES + 2 })
  recordStatements(database.pool, statements)
})

afterEach(async () => {
  await database.close()
})

const claimedRun = () => claimedStepRun(t.app, secretsKey)

/**
 * The write of step `a` at `seq`. Its checkpoint names its run, so no two runs' are equal, and
 * holds what an array literal must escape (quotes, a backslash, braces, a comma).
 */
const stepWrite = (c: ClaimedRun, seq: number): StepCheckpoint =>
  writeOfStep(c, seq, { value: checkpointOf(c.runId, seq) })

const checkpointOf = (runId: string, seq: number) =>
  JSON.stringify({ seq, state: { run: runId, note: 'a "b" \\ {c,d} NULL' } })

function spanContext(): SpanContext {
  return {
    traceId: randomBytes(16).toString('hex'),
    spanId: randomBytes(8).toString('hex'),
    traceFlags: TraceFlags.SAMPLED,
  }
}

/** Saves `write` with `span` active, as the worker does inside a step's span. */
function saveUnder(span: SpanContext, write: StepCheckpoint) {
  return context.with(trace.setSpanContext(ROOT_CONTEXT, span), () =>
    saveStepCheckpoint(database, write),
  )
}

/** What a write of `runId` left, read as the owner. */
async function written(tenant: string, runId: string) {
  const q = async (text: string, values: unknown[]) => (await t.owner.query(text, values)).rows
  const [run] = await q(`select status, checkpoint_seq, event_seq from runs where id = $1`, [runId])
  return {
    run,
    checkpoints: await q(`select key, value from weave_kv where tenant_id = $1 order by key`, [
      tenant,
    ]),
    events: await q(`select seq, type, data from run_events where run_id = $1 order by seq`, [
      runId,
    ]),
    deliveries: await q(
      `select event_seq, trace_parent from webhook_deliveries where run_id = $1 order by event_seq`,
      [runId],
    ),
  }
}

const sharedStatements = () => statements.filter((s) => s.includes('weave_save_steps')).length

describe('step writes due at once', () => {
  it('share statements, and each lands with its own rows, event, delivery and trace parent', async () => {
    const runs = await Promise.all(Array.from({ length: WRITES }, () => claimedRun()))
    const before = await Promise.all(runs.map((r) => written(r.tenant, r.runId)))
    const spans = runs.map(() => spanContext())

    const saved = await Promise.all(runs.map((r, i) => saveUnder(spans[i]!, stepWrite(r, 1))))

    expect(saved).toEqual(runs.map(() => ({ cancelRequested: false })))
    expect(sharedStatements()).toBeGreaterThanOrEqual(1)
    expect(statements.length).toBeLessThan(WRITES)
    for (const [i, r] of runs.entries()) {
      const after = await written(r.tenant, r.runId)
      const value = checkpointOf(r.runId, 1)
      const seq = before[i]!.run.event_seq + 1
      expect(after.checkpoints).toEqual([
        { key: r.runId, value },
        { key: `${r.runId}/1`, value },
      ])
      expect(after.events.slice(before[i]!.events.length)).toEqual([
        { seq, type: 'step.completed', data: { step: 'a', seq: 1 } },
      ])
      expect(after.run).toEqual({ status: 'running', checkpoint_seq: 1, event_seq: seq })
      expect(after.deliveries).toEqual([
        { event_seq: seq, trace_parent: `00-${spans[i]!.traceId}-${spans[i]!.spanId}-01` },
      ])
    }
  })

  it('refuse a write that lost its claim or is behind its run, and commit the others', async () => {
    const runs = await Promise.all(Array.from({ length: WRITES }, () => claimedRun()))
    const behind = runs[WRITES - 1]!
    await saveStepCheckpoint(database, stepWrite(behind, 1))
    const lost = { ...runs[WRITES - 2]!, leaseToken: randomUUID() }
    const writes = [
      ...runs.slice(0, WRITES - 2).map((r) => stepWrite(r, 1)),
      stepWrite(lost, 1),
      stepWrite(behind, 1),
    ]
    const before = await Promise.all(runs.map((r) => written(r.tenant, r.runId)))
    statements.length = 0

    const outcomes = await Promise.allSettled(writes.map((w) => saveStepCheckpoint(database, w)))

    // Both refused writes waited for the first to go, so they were in a shared statement.
    expect(sharedStatements()).toBe(1)
    expect(outcomes.slice(0, WRITES - 2)).toEqual(
      runs.slice(0, WRITES - 2).map(() => ({
        status: 'fulfilled',
        value: { cancelRequested: false },
      })),
    )
    expect(outcomes[WRITES - 2]).toMatchObject({
      status: 'rejected',
      reason: { name: 'StepRefusedError', code: 'lease-lost', runId: lost.runId },
    })
    expect(outcomes[WRITES - 1]).toMatchObject({
      status: 'rejected',
      reason: { name: 'StepRefusedError', code: 'checkpoint-behind', runId: behind.runId },
    })
    for (const [i, r] of runs.entries()) {
      const after = await written(r.tenant, r.runId)
      const refused = i >= WRITES - 2
      // A refused write leaves its run as it was; every other one moved its run one event on.
      expect(after.run.event_seq).toBe(before[i]!.run.event_seq + (refused ? 0 : 1))
      expect(after.events).toHaveLength(before[i]!.events.length + (refused ? 0 : 1))
      expect(after.run.checkpoint_seq).toBe(i === WRITES - 2 ? 0 : 1)
    }
  })

  it('tell each write whether its own run was asked to cancel', async () => {
    const runs = await Promise.all(Array.from({ length: WRITES }, () => claimedRun()))
    const cancelled = runs[WRITES - 1]!
    await t.owner.query(`update runs set cancel_requested = true where id = $1`, [cancelled.runId])

    const saved = await Promise.all(runs.map((r) => saveStepCheckpoint(database, stepWrite(r, 1))))

    expect(sharedStatements()).toBe(1)
    expect(saved).toEqual(runs.map((r) => ({ cancelRequested: r === cancelled })))
  })

  it('send a large checkpoint as its own statement, also while others are in flight', async () => {
    const runs = await Promise.all(Array.from({ length: WRITES }, () => claimedRun()))
    const large = runs[WRITES - 1]!
    const value = JSON.stringify({ seq: 1, text: 'x'.repeat(MAX_SHARED_CHECKPOINT_CHARS) })

    await Promise.all(
      runs.map((r) =>
        saveStepCheckpoint(database, r === large ? { ...stepWrite(r, 1), value } : stepWrite(r, 1)),
      ),
    )

    // One write went at once, six waited and shared one statement, the large one went at once on
    // its own.
    expect(sharedStatements()).toBe(1)
    expect(statements).toHaveLength(3)
    const { checkpoints } = await written(large.tenant, large.runId)
    expect(checkpoints.map((c: { value: string }) => c.value)).toEqual([value, value])
  })

  it('send a write alone as its own statement, as before', async () => {
    const run = await claimedRun()
    statements.length = 0

    await saveStepCheckpoint(database, stepWrite(run, 1))

    expect(statements).toHaveLength(1)
    expect(statements[0]).toContain('weave_save_step(')
    expect((await written(run.tenant, run.runId)).run.checkpoint_seq).toBe(1)
  })
})
