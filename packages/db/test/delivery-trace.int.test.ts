import { randomBytes } from 'node:crypto'
import { context, ROOT_CONTEXT, trace, TraceFlags, type SpanContext } from '@opentelemetry/api'
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  appendRunEvent,
  claimRunForJob,
  completeRun,
  createDb,
  createWebhook,
  listWebhookDeliveries,
  saveStepCheckpoint,
  withTenant,
  type Database,
} from '@weave/db'
import { type TestDatabase, createTestDatabase, randomTenant, seedRunIn } from './test-database.js'

// A delivery is inserted by SQL (weave_append_run_event), which knows nothing of traces: its
// trace_parent comes from the column's default, reading the setting withTenant makes from the
// span active when the transaction began, or that a worker's single statements (claim, step,
// completion) make for their own transaction.

let t: TestDatabase
// One connection, so an untraced transaction runs on the one a traced transaction used.
let single: Database
const key = randomBytes(32)

beforeAll(async () => {
  // What a host with tracing on registers: a context that follows the code, so `context.with` holds.
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable())
  t = await createTestDatabase('weave_db_delivery_trace')
  single = createDb({ connectionString: t.url, max: 1 })
})

afterAll(async () => {
  context.disable()
  await single?.close()
  await t?.drop()
})

function spanContext(traceFlags = TraceFlags.SAMPLED): SpanContext {
  return {
    traceId: randomBytes(16).toString('hex'),
    spanId: randomBytes(8).toString('hex'),
    traceFlags,
  }
}

/** Runs `fn` with `span` active, or with no span when it is undefined. */
function under<T>(span: SpanContext | undefined, fn: () => Promise<T>): Promise<T> {
  return span ? context.with(trace.setSpanContext(ROOT_CONTEXT, span), fn) : fn()
}

const traceParentOf = (span: SpanContext) => `00-${span.traceId}-${span.spanId}-01`

/** Appends a run.completed event (under `span` when given) and returns its delivery's trace_parent. */
async function deliveryTraceParent(span?: SpanContext): Promise<string | null> {
  const tenant = randomTenant()
  const run = await seedRunIn(single, tenant)
  const { webhook } = await withTenant(single, tenant, (tx) =>
    createWebhook(tx, key, { url: 'https://h.test/', events: ['run.completed'], createdBy: 'a' }),
  )
  const append = () =>
    withTenant(single, tenant, (tx) =>
      appendRunEvent(tx, run.id, 'run.completed', { steps: 1, lastStep: 'a' }),
    )
  await under(span, append)
  const page = await withTenant(single, tenant, (tx) => listWebhookDeliveries(tx, webhook.id))
  expect(page.items).toHaveLength(1)
  return page.items[0]!.traceParent
}

describe("a webhook delivery's trace parent", () => {
  it('is the span active in the transaction that created it, as a W3C traceparent', async () => {
    const sampled = spanContext()
    expect(await deliveryTraceParent(sampled)).toBe(`00-${sampled.traceId}-${sampled.spanId}-01`)
    const unsampled = spanContext(TraceFlags.NONE)
    expect(await deliveryTraceParent(unsampled)).toBe(
      `00-${unsampled.traceId}-${unsampled.spanId}-00`,
    )
  })

  it('is null without an active span, also on a connection a traced transaction used', async () => {
    await deliveryTraceParent(spanContext())
    expect(await deliveryTraceParent()).toBeNull()
  })

  it('is null when the active span context is not valid', async () => {
    const invalid = { traceId: '0'.repeat(32), spanId: '0'.repeat(16), traceFlags: 1 }
    expect(await deliveryTraceParent(invalid)).toBeNull()
    const malformed = { traceId: "x'); drop table runs; --", spanId: 'z', traceFlags: 1 }
    expect(await deliveryTraceParent(malformed)).toBeNull()
  })
})

/**
 * Claims, steps and completes a run in the worker's single statements, each under its span of
 * `spans` (none when undefined), and returns the trace_parent of each event's delivery.
 */
async function workerDeliveryTraceParents(
  spans?: Record<'claim' | 'step' | 'complete', SpanContext>,
): Promise<Record<string, string | null>> {
  const tenant = randomTenant()
  const run = await seedRunIn(single, tenant)
  const { webhook } = await withTenant(single, tenant, (tx) =>
    createWebhook(tx, key, {
      url: 'https://h.test/',
      events: ['run.started', 'step.completed', 'run.completed'],
      createdBy: 'a',
    }),
  )
  const claimed = await under(spans?.claim, () =>
    claimRunForJob(single, {
      tenant,
      runId: run.id,
      jobId: 'job-1',
      from: ['queued'],
      eventReason: 'run',
    }),
  )
  if (!('run' in claimed)) throw new Error(`skipped: ${claimed.skipped}`)
  const leaseToken = claimed.run.leaseToken!
  await under(spans?.step, () =>
    saveStepCheckpoint(single, {
      tenant,
      runId: run.id,
      leaseToken,
      ns: '0:checkpoint:g',
      keys: [run.id],
      value: '{}',
      latestKey: run.id,
      seq: 1,
      isRoot: true,
      isFailed: false,
      event: { step: 'a', seq: 1 },
    }),
  )
  const completed = await under(spans?.complete, () =>
    completeRun(single, {
      tenant,
      runId: run.id,
      leaseToken,
      stopReason: 'done',
      lastStep: 'a',
      addSteps: 1,
    }),
  )
  expect(completed).toBe(true)
  const page = await withTenant(single, tenant, (tx) => listWebhookDeliveries(tx, webhook.id))
  return Object.fromEntries(page.items.map((d) => [d.eventType, d.traceParent]))
}

describe("the trace parent of a delivery created by a worker's single statement", () => {
  it('is the span active when the run was claimed, stepped or completed', async () => {
    const spans = { claim: spanContext(), step: spanContext(), complete: spanContext() }
    expect(await workerDeliveryTraceParents(spans)).toEqual({
      'run.started': traceParentOf(spans.claim),
      'step.completed': traceParentOf(spans.step),
      'run.completed': traceParentOf(spans.complete),
    })
  })

  it('is null without an active span, on the connection the traced statements used', async () => {
    expect(await workerDeliveryTraceParents()).toEqual({
      'run.started': null,
      'step.completed': null,
      'run.completed': null,
    })
  })
})
