import { drizzle } from 'drizzle-orm/node-postgres'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  type Database,
  claimRun,
  claimRunForJob,
  completeRun,
  decideApproval,
  listApprovals,
  listRuns,
  readRunForView,
  renewRunLease,
  requestRunCancel,
  saveStepCheckpoint,
  takeOverRunLease,
  transitionRun,
  withTenant,
} from '@weave/db'
import * as schema from '../src/schema/index.js'
import {
  type TestDatabase,
  createTestDatabase,
  randomTenant,
  seedApprovalIn,
  seedRunIn,
} from './test-database.js'

// The plans Postgres chooses for a tenant's run lists and for a run's hot statements, read with
// auto_explain from the session that runs them (statements inside the plpgsql functions
// included), on a table with thousands of runs and statistics, as a service has them.

/** One node of an EXPLAIN (FORMAT JSON) plan, with the fields read here. */
interface PlanNode {
  'Node Type': string
  'Relation Name'?: string
  'Index Name'?: string
  Alias?: string
  Plans?: PlanNode[]
}

interface Explained {
  query: string
  plan: PlanNode
}

const RUNS = 3000

let t: TestDatabase
let explaining: Database
const explained: Explained[] = []
let tenant: string
let seededRunId: string

beforeAll(async () => {
  t = await createTestDatabase('weave_db_plans')
  // The owner's login may preload auto_explain for its session; the session then acts as the app
  // role, as every pool of the service does, and receives each plan as a notice.
  const pool = new pg.Pool({
    connectionString: t.url,
    max: 1,
    options: [
      '-c role=weave_app',
      '-c session_preload_libraries=auto_explain',
      '-c auto_explain.log_min_duration=0',
      '-c auto_explain.log_nested_statements=on',
      '-c auto_explain.log_level=notice',
      '-c auto_explain.log_format=json',
    ].join(' '),
  })
  pool.on('connect', (client) =>
    client.on('notice', (notice) => {
      const json = notice.message?.split('plan:\n')[1]
      if (!json) return
      const parsed = JSON.parse(json) as { 'Query Text': string; Plan: PlanNode }
      explained.push({ query: parsed['Query Text'], plan: parsed.Plan })
    }),
  )
  explaining = { pool, db: drizzle({ client: pool, schema }), close: () => pool.end() }

  tenant = randomTenant()
  const seeded = await seedRunIn(t.app, tenant)
  seededRunId = seeded.id
  // Another tenant's runs, so a tenant's share of the table is not all of it.
  await seedRunIn(t.app, randomTenant())
  await t.owner.query(
    `insert into runs (tenant_id, graph_name, graph_version, input, created_by, status, created_at)
     select r.tenant_id, r.graph_name, r.graph_version, r.input, r.created_by,
       (array['completed', 'completed', 'failed', 'cancelled'])[1 + i % 4],
       now() - make_interval(secs => i)
     from runs r, generate_series(1, $2::int) i where r.id = $1`,
    [seededRunId, RUNS],
  )
  await t.owner.query('analyze runs')
})

afterAll(async () => {
  await explaining?.close()
  await t?.drop()
})

/** The plans of the statements `fn` ran on the explaining session. */
async function plansOf(fn: () => Promise<unknown>): Promise<Explained[]> {
  const from = explained.length
  await fn()
  return explained.slice(from)
}

function nodes(plan: PlanNode): PlanNode[] {
  return [plan, ...(plan.Plans ?? []).flatMap(nodes)]
}

/**
 * How the plans read `relation`: `Seq Scan`, or the name of the index each scan reads; only the
 * scans `alias` accepts, when given.
 */
function access(
  plans: Explained[],
  relation: string,
  alias: (alias: string | undefined) => boolean = () => true,
): string[] {
  return plans.flatMap((e) =>
    nodes(e.plan)
      .filter(
        (n) =>
          n['Relation Name'] === relation && n['Node Type'] !== 'ModifyTable' && alias(n.Alias),
      )
      .map((n) => n['Index Name'] ?? n['Node Type']),
  )
}

describe('query plans on a table with statistics', () => {
  it("reads a page of a tenant's runs in an index's order, with no sort of the tenant's runs", async () => {
    const pages: Array<[string, Parameters<typeof listRuns>[1], string]> = [
      ['newest first', { limit: 20 }, 'runs_tenant_created'],
      ['in one status', { limit: 20, status: 'failed' }, 'runs_tenant_status_created'],
    ]
    for (const [label, options, index] of pages) {
      const first = await withTenant(explaining, tenant, (tx) => listRuns(tx, options))
      expect(first.items, label).toHaveLength(20)
      expect(first.nextCursor, label).not.toBeNull()
      const plans = await plansOf(() =>
        withTenant(explaining, tenant, (tx) =>
          listRuns(tx, { ...options, cursor: first.nextCursor! }),
        ),
      )
      const list = plans.filter((e) => /from "runs"/.test(e.query))
      expect(list, label).toHaveLength(1)
      expect(
        nodes(list[0]!.plan).map((n) => n['Node Type']),
        label,
      ).not.toContain('Sort')
      expect(access(list, 'runs'), label).toEqual([index])
    }
  })

  it("reaches a run through its primary key in a claim, a step's write, a completion and a read", async () => {
    const run = await seedRunIn(t.app, tenant)
    const plans = await plansOf(async () => {
      const claim = await claimRunForJob(explaining, {
        tenant,
        runId: run.id,
        jobId: 'job-1',
        from: ['queued'],
        eventReason: 'start',
      })
      if (!('run' in claim)) throw new Error(`claim skipped: ${claim.skipped}`)
      const leaseToken = claim.run.leaseToken!
      for (let seq = 1; seq <= 3; seq++) {
        await saveStepCheckpoint(explaining, {
          tenant,
          runId: run.id,
          leaseToken,
          ns: '0:checkpoint:g',
          keys: [run.id],
          value: JSON.stringify({ seq }),
          latestKey: run.id,
          seq,
          isRoot: true,
          isFailed: false,
          event: { step: 'a', seq },
        })
        await readRunForView(explaining, tenant, run.id, '0:checkpoint:')
      }
      expect(
        await completeRun(explaining, {
          tenant,
          runId: run.id,
          leaseToken,
          stopReason: 'completed',
          lastStep: 'a',
          addSteps: 3,
        }),
      ).toBe(true)
    })
    const reached = access(plans, 'runs')
    // The claim (read and update), three writes and reads, and the completion.
    expect(reached.length).toBeGreaterThanOrEqual(9)
    expect(new Set(reached)).toEqual(new Set(['runs_pkey']))
  })

  it("reaches a run through its primary key in the lease's and the status's other updates", async () => {
    const run = await seedRunIn(t.app, tenant)
    const queued = await seedRunIn(t.app, tenant)
    const plans = await plansOf(() =>
      withTenant(explaining, tenant, async (tx) => {
        expect(await claimRun(tx, run.id, ['queued'], 'job-1')).not.toBeNull()
        expect(await renewRunLease(tx, run.id, 'job-1')).toBe(true)
        expect(await takeOverRunLease(tx, run.id, 'job-1', 'job-2')).not.toBeNull()
        expect(await transitionRun(tx, run.id, ['running'], 'failed')).not.toBeNull()
        expect((await requestRunCancel(tx, queued.id))?.cancelledNow).toBe(true)
      }),
    )
    const reached = access(plans, 'runs')
    expect(reached.length).toBeGreaterThanOrEqual(5)
    expect(new Set(reached)).toEqual(new Set(['runs_pkey']))
  })

  it("decides an approval through its primary key and reads a status's page in index order", async () => {
    const seeded = await seedApprovalIn(t.app, tenant)
    await t.owner.query(
      `insert into approvals
       select (jsonb_populate_record(null::approvals, to_jsonb(a) || jsonb_build_object(
         'id', gen_random_uuid(), 'seq', a.seq + i,
         'status', (array['approved', 'rejected'])[1 + i % 2], 'settled_at', now(),
         'consumed_seq', a.seq + i, 'created_at', now() - make_interval(secs => i)))).*
       from approvals a, generate_series(1, $2::int) i where a.id = $1`,
      [seeded.approvalId, RUNS],
    )
    await t.owner.query('analyze approvals')
    const fresh = await seedApprovalIn(t.app, tenant)

    const first = await withTenant(explaining, tenant, (tx) =>
      listApprovals(tx, { status: 'approved', limit: 20 }),
    )
    expect(first.nextCursor).not.toBeNull()
    const listPlans = await plansOf(() =>
      withTenant(explaining, tenant, (tx) =>
        listApprovals(tx, { status: 'approved', limit: 20, cursor: first.nextCursor! }),
      ),
    )
    const list = listPlans.filter((e) => /from "approvals"/.test(e.query))
    expect(list).toHaveLength(1)
    expect(nodes(list[0]!.plan).map((n) => n['Node Type'])).not.toContain('Sort')
    expect(access(list, 'approvals')).toEqual(['approvals_tenant_status_created'])

    const decisionPlans = await plansOf(() =>
      withTenant(explaining, tenant, (tx) =>
        decideApproval(tx, {
          approvalId: fresh.approvalId,
          subject: 'alice',
          subjectScopes: [],
          decision: 'approve',
        }),
      ),
    )
    // The read, the lock, the decision's foreign-key check and the settle reach the approval by
    // its key; the look for a pending approval of the same turn (`s`) by the turn's key.
    const reached = access(decisionPlans, 'approvals', (alias) => alias !== 's')
    expect(reached.length).toBeGreaterThanOrEqual(4)
    expect(new Set(reached)).toEqual(new Set(['approvals_pkey']))
    const siblings = access(decisionPlans, 'approvals', (alias) => alias === 's')
    expect(siblings.length).toBeGreaterThanOrEqual(1)
    expect(new Set(siblings)).toEqual(new Set(['approvals_run_step_seq_call']))
  })
})
