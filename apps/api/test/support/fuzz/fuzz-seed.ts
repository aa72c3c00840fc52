import {
  appendAudit,
  appendRunEvent,
  archiveGraph,
  withTenant,
  type Database,
  type GraphRegistry,
} from '@weave/db'
import type { Json } from '@weave/kernel'
import type { App } from '../../../src/app.js'
import {
  PRICING_SPEC,
  executeWithKernel,
  moveRun,
  seedApproval,
  seedApprovalLinks,
  seedGraph,
  seedRun,
} from '../fixtures.js'
import { INPUT_SCHEMAS } from './spec-arbitrary.js'

/** A webhook URL on the host the fuzz app allow-lists (nothing listens there). */
export const WEBHOOK_URL = 'http://127.0.0.1:9999/hook'

/** What {@link seedTenant} put in the database. */
export interface SeededData {
  graphNames: string[]
  /** The run the kernel executed: it has checkpoints 1..n. */
  executedRunId: string
  runIds: string[]
  approvalIds: string[]
  materialHashes: string[]
  /** Approval link tokens (approve and reject), one pair expired. */
  linkTokens: string[]
  auditId: string
}

/**
 * Seeds a tenant the way the API and a worker would leave it: three graphs (one archived), runs
 * queued, running with real checkpoints, failed, and waiting for input; pending approvals
 * (plain, two-person with separation of duties, restricted to another subject, expired) with
 * approval link tokens; run events and audit events.
 */
export async function seedTenant(
  database: Database,
  registry: GraphRegistry,
  tenant: string,
): Promise<SeededData> {
  await seedGraph(database, tenant, 'pricing')
  await seedGraph(database, tenant, 'refunds', { ...PRICING_SPEC, input: INPUT_SCHEMAS[2] })
  await seedGraph(database, tenant, 'old-graph')
  await withTenant(database, tenant, (tx) => archiveGraph(tx, 'old-graph'))

  const approvals = [
    await seedApproval(database, tenant),
    await seedApproval(database, tenant, {
      required: 2,
      separationOfDuties: true,
      createdBy: 'fuzzer',
    }),
    await seedApproval(database, tenant, { approvers: { subjects: ['someone-else'] } }),
    await seedApproval(database, tenant, { expiresAt: new Date(Date.now() - 60_000) }),
  ]
  // Plain pending approvals, so several generated decisions settle one and resume its run.
  for (let index = 0; index < 4; index += 1) approvals.push(await seedApproval(database, tenant))

  // A run the kernel really executed: checkpoints 1..n, so history, checkpoint and fork hit rows.
  const executed = await seedRun(database, tenant, { input: { amount: 500 } })
  await moveRun(database, tenant, executed.id, 'running')
  await executeWithKernel(
    database,
    registry,
    tenant,
    { id: executed.id, graph: 'pricing', version: executed.graphVersion },
    { amount: 500 },
  )
  const failed = await seedRun(database, tenant)
  await moveRun(database, tenant, failed.id, 'failed')
  const waitingForInput = await seedRun(database, tenant)
  await moveRun(database, tenant, waitingForInput.id, 'waiting', {
    kind: 'input',
    step: 'ask',
    atSeq: 0,
    prompt: null,
    schema: {
      type: 'object',
      required: ['address'],
      properties: { address: { type: 'string', maxLength: 20 } },
    },
    saveAs: null,
  })
  const queued = await seedRun(database, tenant)
  const runIds = [
    executed.id,
    failed.id,
    waitingForInput.id,
    queued.id,
    ...approvals.map((a) => a.run.id),
  ]

  const linkTokens: string[] = []
  for (const [index, approval] of approvals.slice(3).entries()) {
    const tokens = await seedApprovalLinks(database, tenant, {
      ...approval,
      expiresAt: new Date(Date.now() + (index === 0 ? -60_000 : 3_600_000)),
    })
    linkTokens.push(...Object.values(tokens))
  }
  return withTenant(database, tenant, async (tx) => {
    for (const runId of runIds) {
      await appendRunEvent(tx, runId, 'run.queued', { graph: 'pricing', version: 1 })
      await appendRunEvent(tx, runId, 'run.started', {})
    }
    let auditId = ''
    for (const runId of runIds.slice(0, 3)) {
      const event = await appendAudit(tx, {
        actor: 'seed',
        action: 'seed.created',
        target: { kind: 'run', id: runId },
        requestId: 'seed-request',
        ip: '127.0.0.1',
        details: { note: 'seeded for the fuzz test' },
      })
      auditId = event.id
    }
    return {
      graphNames: ['pricing', 'refunds', 'old-graph'],
      executedRunId: executed.id,
      runIds,
      approvalIds: approvals.map((a) => a.approvalId),
      materialHashes: approvals.map((a) => a.materialHash),
      linkTokens,
      auditId,
    }
  })
}

/** Registers a webhook through the API, as a client would; its id, or none when refused. */
export async function seedWebhook(app: App, token: string): Promise<string[]> {
  const response = await app.inject({
    method: 'POST',
    url: '/v1/webhooks',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    payload: JSON.stringify({ url: WEBHOOK_URL, events: ['run.completed', 'approval.requested'] }),
  })
  const { id } = response.json<{ id?: unknown }>()
  return response.statusCode === 201 && typeof id === 'string' ? [id] : []
}

/** Graphs and waiting runs whose input schema is one of {@link INPUT_SCHEMAS}. */
export interface SchemaSeeds {
  /** Graphs whose run input must match the schema (the ones registration accepted). */
  graphNames: string[]
  /** Runs waiting on an input step with that schema. */
  runIds: string[]
}

/**
 * Registers a graph through the API for every odd input schema, and for each one registration
 * accepts, a run waiting on an input step with that schema, as a worker would leave it: starting
 * and resuming runs then validate generated input against every schema a graph can carry.
 */
export async function seedSchemas(
  app: App,
  token: string,
  database: Database,
  tenant: string,
): Promise<SchemaSeeds> {
  const seeds: SchemaSeeds = { graphNames: [], runIds: [] }
  for (const [index, schema] of INPUT_SCHEMAS.entries()) {
    const name = `schema-${index}`
    const spec = { entry: 'ask', input: schema, steps: { ask: { kind: 'input', schema } } }
    const response = await app.inject({
      method: 'POST',
      url: '/v1/graphs',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      payload: JSON.stringify({ name, spec }),
    })
    if (response.statusCode !== 201) continue
    seeds.graphNames.push(name)
    const run = await seedRun(database, tenant)
    await moveRun(database, tenant, run.id, 'waiting', {
      kind: 'input',
      step: 'ask',
      atSeq: 0,
      prompt: null,
      schema: schema as Json,
      saveAs: null,
    })
    seeds.runIds.push(run.id)
  }
  return seeds
}

/** Real cursors from the first page of every list, and near misses of them. */
export async function collectCursors(app: App, token: string): Promise<string[]> {
  const cursors = ['1', '2']
  for (const url of ['/v1/graphs', '/v1/runs', '/v1/approvals', '/v1/audit', '/v1/webhooks']) {
    const response = await app.inject({
      method: 'GET',
      url: `${url}?limit=1`,
      headers: { authorization: `Bearer ${token}` },
    })
    if (response.statusCode !== 200) continue
    const { nextCursor: next } = response.json<{ nextCursor?: unknown }>()
    if (typeof next === 'string') {
      cursors.push(next, next.slice(0, -2), `${next}A`, next.split('').reverse().join(''))
    }
  }
  return cursors
}
