import { randomBytes } from 'node:crypto'
import {
  approvalLinkTokens,
  claimRun,
  createRun,
  createWebhook,
  openApproval,
  registerGraphVersion,
  transitionRun,
  withTenant,
  type Approvers,
  type Database,
  type Decision,
  type GraphRegistry,
  type RunRow,
  type WaitingOn,
} from '@weave/db'
import type { Json, RunResult, State } from '@weave/kernel'
import { PgStore } from '@weave/pgstore'
import { GraphSpec } from '@weave/spec'

/** Two `set` steps and an input schema: `{ amount: number }`. */
export const PRICING_SPEC = {
  entry: 'price',
  input: {
    type: 'object',
    required: ['amount'],
    properties: { amount: { type: 'number' }, note: { type: 'string' } },
  },
  steps: {
    price: { kind: 'set', values: { total: 'amount * 2' }, next: 'label' },
    label: {
      kind: 'set',
      values: { size: "total > 100 ? 'big' : 'small'" },
      next: { branch: 'size', routes: { big: 'review' }, default: null },
    },
    review: { kind: 'approval', title: 'Charge {{ total }}?' },
  },
}

/** Registers `spec` as a version of `name` straight in the database (no API, no audit). */
export async function seedGraph(
  database: Database,
  tenant: string,
  name: string,
  spec: unknown = PRICING_SPEC,
): Promise<number> {
  const parsed = GraphSpec.parse(spec)
  const registered = await withTenant(database, tenant, (tx) =>
    registerGraphVersion(tx, { name, spec: parsed, createdBy: 'author' }),
  )
  return registered.version
}

/** A queued run of `graph` straight in the database (no API, no event, no audit). */
export async function seedRun(
  database: Database,
  tenant: string,
  options: { graph?: string; createdBy?: string; input?: State } = {},
): Promise<RunRow> {
  const graph = options.graph ?? 'pricing'
  const version = await seedGraph(database, tenant, graph)
  return withTenant(database, tenant, async (tx) => {
    const { run } = await createRun(tx, {
      graphName: graph,
      graphVersion: version,
      input: options.input ?? { amount: 10 },
      createdBy: options.createdBy ?? 'starter',
    })
    return run
  })
}

/** Moves a queued run where a worker would have put it. */
export async function moveRun(
  database: Database,
  tenant: string,
  runId: string,
  to: 'running' | 'waiting' | 'completed' | 'failed',
  waitingOn?: WaitingOn,
): Promise<RunRow> {
  return withTenant(database, tenant, async (tx) => {
    const running = await claimRun(tx, runId, ['queued'], `job-${runId}`)
    if (to === 'running') return running as RunRow
    const patch =
      to === 'failed' ? { error: { message: 'boom' } } : { waitingOn: waitingOn ?? null }
    return (await transitionRun(tx, runId, ['running'], to, patch)) as RunRow
  })
}

/** Approval options of {@link seedApproval}. */
export interface SeedApprovalOptions {
  createdBy?: string
  required?: number
  separationOfDuties?: boolean
  approvers?: Approvers
  expiresAt?: Date | null
  /** The approval step's `schema` for a decision's input. */
  inputSchema?: Json | null
}

/** A run waiting on a pending `review` approval at checkpoint 2, as a worker leaves it. */
export async function seedApproval(
  database: Database,
  tenant: string,
  options: SeedApprovalOptions = {},
): Promise<{ run: RunRow; approvalId: string; materialHash: string }> {
  const run = await seedRun(database, tenant, { createdBy: options.createdBy ?? 'starter' })
  await moveRun(database, tenant, run.id, 'running')
  return withTenant(database, tenant, async (tx) => {
    const { approval } = await openApproval(tx, {
      runId: run.id,
      step: 'review',
      seq: 2,
      title: 'Charge 20?',
      details: { amount: 10 },
      required: options.required ?? 1,
      separationOfDuties: options.separationOfDuties ?? false,
      ...(options.approvers ? { approvers: options.approvers } : {}),
      expiresAt: options.expiresAt ?? null,
      inputSchema: options.inputSchema ?? null,
    })
    const waitingOn = {
      kind: 'approval' as const,
      step: 'review',
      approvalId: approval.id,
      atSeq: 2,
    }
    const waiting = await transitionRun(tx, run.id, ['running'], 'waiting', { waitingOn })
    return { run: waiting as RunRow, approvalId: approval.id, materialHash: approval.materialHash }
  })
}

/** Runs a run's graph with the real kernel and the tenant's PgStore, as a worker would. */
export async function executeWithKernel(
  database: Database,
  registry: GraphRegistry,
  tenant: string,
  run: { id: string; graph: string; version: number },
  input: State,
): Promise<RunResult> {
  const { graph } = await registry.get(tenant, run.graph, run.version)
  return graph.run(input, { runId: run.id, store: new PgStore({ pool: database.pool, tenant }) })
}

/**
 * Runs one statement as the app role for `tenant` (row-level security in force): what the
 * worker's own writes would have done, where no query function of @weave/db does it alone.
 */
export async function asTenant(
  database: Database,
  tenant: string,
  text: string,
  values: unknown[],
): Promise<void> {
  const client = await database.pool.connect()
  try {
    await client.query('begin')
    await client.query("select set_config('weave.tenant', $1, true)", [tenant])
    await client.query(text, values)
    await client.query('commit')
  } catch (err) {
    await client.query('rollback')
    throw err
  } finally {
    client.release()
  }
}

/** Sets a run's checkpoint seq, as the worker's checkpoint writes move it. */
export async function setCheckpointSeq(
  database: Database,
  tenant: string,
  runId: string,
  seq: number,
): Promise<void> {
  await asTenant(database, tenant, 'update runs set checkpoint_seq = $1 where id = $2', [
    seq,
    runId,
  ])
}

/**
 * The approve and reject tokens of an approval's links, as a worker issues them for a webhook
 * that may carry them (a webhook is made for them, its URL never called).
 */
export async function seedApprovalLinks(
  database: Database,
  tenant: string,
  approval: { approvalId: string; materialHash: string; expiresAt?: Date },
): Promise<Record<Decision, string>> {
  return withTenant(database, tenant, async (tx) => {
    const secretsKey = randomBytes(32)
    const { webhook } = await createWebhook(tx, secretsKey, {
      url: 'https://hooks.example.com/weave',
      events: ['approval.requested'],
      scopes: ['approvals:decide'],
      createdBy: 'author',
    })
    return approvalLinkTokens(tx, {
      approvalId: approval.approvalId,
      materialHash: approval.materialHash,
      webhookId: webhook.id,
      expiresAt: approval.expiresAt ?? new Date(Date.now() + 3_600_000),
      secretsKey,
    })
  })
}
