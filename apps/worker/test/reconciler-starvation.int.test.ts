import {
  createApprovalLifecycle,
  createDb,
  createRun,
  jobId,
  listAudit,
  migrateDatabase,
  pendingAuditInsert,
  registerGraphVersion,
  verifyAudit,
  withTenant,
  type Database,
} from '@weave/db'
import { createJobQueues, redisConnection, type JobQueues } from '@weave/queue'
import pg from 'pg'
import { pino } from 'pino'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { TEST_REDIS_URL, testDatabase } from './support/test-services.js'
import { reconcileOnce } from '../src/index.js'

// Each kind of repair pages through its own indexed query with its own cursor, so thousands of
// runs waiting for people never hide a lost job: a queued run whose job Redis lost is enqueued
// again by the next pass, however many older waiting runs there are.

const testDb = testDatabase('weave_starve')
const { url, suffix } = testDb
const tenant = `t-${suffix}`
const prefix = `starve-test-${suffix}`
const silent = pino({ level: 'silent' })

const WAITING = 2_000
const QUIET_MS = 60_000

let database: Database | undefined
let owner: pg.Pool | undefined
let queues: JobQueues | undefined

beforeAll(async () => {
  await migrateDatabase({ connectionString: url })
  database = createDb({ connectionString: url, max: 4 })
  // The owner connection seeds in bulk what thousands of API calls would have created.
  owner = new pg.Pool({ connectionString: url, max: 1 })
  queues = createJobQueues({ connection: redisConnection(TEST_REDIS_URL), prefix })
})

afterAll(async () => {
  const steps: Array<() => Promise<unknown>> = [
    async () => {
      for (const queue of [queues?.runs, queues?.timers, queues?.webhooks, queues?.maintenance]) {
        await queue?.obliterate({ force: true })
      }
    },
    async () => queues?.close(),
    async () => database?.close(),
    async () => {
      owner?.on('error', () => undefined)
      await owner?.end()
    },
    () => testDb.drop(),
  ]
  const failures: unknown[] = []
  for (const step of steps) await step().catch((err: unknown) => failures.push(err))
  if (failures.length > 0) throw new AggregateError(failures, 'cleanup failed')
})

/** Registers the graph whose runs stop at an approval step, and returns its version. */
async function registerApprovalGraph(db: Database): Promise<number> {
  const spec = {
    entry: 'review',
    steps: {
      review: { kind: 'approval', title: 'Ship it?', next: 'ship' },
      ship: { kind: 'set', values: { shipped: 'true' } },
    },
  }
  return withTenant(db, tenant, async (tx) => {
    const v = await registerGraphVersion(tx, { name: 'review', spec, createdBy: 'author' })
    return v.version
  })
}

/**
 * Seeds `WAITING` runs parked on a pending approval each, changed one second apart from three
 * hours ago on: far older than the quiet period, and older than the queued run seeded after them.
 */
async function seedWaitingRuns(pool: pg.Pool, version: number): Promise<void> {
  await pool.query(
    `insert into runs (tenant_id, graph_name, graph_version, status, input, waiting_on,
                       created_by, checkpoint_seq, created_at, updated_at)
     select $1, 'review', $2, 'waiting', '{}'::jsonb,
            jsonb_build_object('kind', 'approval', 'step', 'review',
                               'approvalId', gen_random_uuid(), 'atSeq', 1),
            'starter', 1, at, at
     from (select now() - interval '3 hours' + i * interval '1 second' as at
           from generate_series(1, $3::int) as i) s`,
    [tenant, version, WAITING],
  )
  await pool.query(
    `insert into approvals (id, tenant_id, run_id, step, seq, root_seq, status, title,
                            material_hash, save_as, created_at)
     select (waiting_on->>'approvalId')::uuid, tenant_id, id, 'review', 1, 1, 'pending',
            'Ship it?', 'sha256:seed', 'review', created_at
     from runs where tenant_id = $1 and status = 'waiting'`,
    [tenant],
  )
}

/** The waiting runs as the reconciler could change them: status, lease, wait and last change. */
async function waitingRuns(pool: pg.Pool) {
  const { rows } = await pool.query<{
    id: string
    status: string
    lease_job: string | null
    waiting_on: unknown
    pending_resume: unknown
    updated_at: Date
  }>(
    `select id, status, lease_job, waiting_on, pending_resume, updated_at
     from runs where tenant_id = $1 and graph_name = 'review' order by id`,
    [tenant],
  )
  return rows
}

describe('the reconciler under many waiting runs', () => {
  it('repairs a lost queued job even when thousands of runs wait for approvals', async () => {
    const db = database!
    const pool = owner!
    const jobs = queues!
    const version = await registerApprovalGraph(db)
    await seedWaitingRuns(pool, version)

    // The queued run is created after every waiting run and its job never reached Redis (as
    // when Redis lost it): only Postgres still knows the run must be executed.
    const queued = await withTenant(db, tenant, async (tx) => {
      const v = await registerGraphVersion(tx, {
        name: 'linear',
        spec: { entry: 'a', steps: { a: { kind: 'set', values: { done: 'true' } } } },
        createdBy: 'author',
      })
      const { run } = await createRun(tx, {
        graphName: 'linear',
        graphVersion: v.version,
        input: {},
        createdBy: 'starter',
      })
      return run
    })
    await pool.query(
      `update runs set created_at = now() - interval '1 hour', updated_at = now() - interval '1 hour'
       where id = $1`,
      [queued.id],
    )
    const job = jobId('run', { runId: queued.id, tenant })
    expect(await jobs.runs.getJob(job)).toBeUndefined()

    const before = await waitingRuns(pool)
    expect(before).toHaveLength(WAITING)
    expect(before.every((r) => r.status === 'waiting')).toBe(true)
    const { rows: order } = await pool.query<{ newer: number }>(
      `select count(*)::int as newer from runs
       where tenant_id = $1 and status = 'waiting'
         and updated_at >= (select updated_at from runs where id = $2)`,
      [tenant, queued.id],
    )
    // Every waiting run changed before the queued one: an oldest-first scan of all the runs
    // with a bounded page would fill up with waiting runs and never reach it.
    expect(order[0]!.newer).toBe(0)

    const lifecycle = createApprovalLifecycle({ database: db, jobs })
    // The default bound of rows per kind of repair (maxPerKind) is kept: the waiting runs alone
    // are as many, and must not count against the sweep of queued runs.
    const report = await reconcileOnce(
      { database: db, queues: jobs, lifecycle, log: silent, quietMs: QUIET_MS },
      new Date(),
    )

    expect(report).toEqual({
      requeued: 1,
      recovered: 0,
      resumed: 0,
      resumeRequests: 0,
      timersFired: 0,
      approvalsExpired: 0,
      deliveriesRequeued: 0,
      auditChained: 0,
    })
    const added = await jobs.runs.getJob(job)
    expect(added?.name).toBe('run')
    expect(added?.data).toEqual({ runId: queued.id, tenant })
    expect(await jobs.hasLiveJob('runs', job)).toBe(true)
    // The repair added that job and nothing for the waiting runs, which stay exactly as they were.
    expect(await jobs.runs.getJobCounts('waiting', 'delayed', 'active')).toEqual({
      waiting: 1,
      delayed: 0,
      active: 0,
    })
    expect(await waitingRuns(pool)).toEqual(before)
  })

  it('chains the audit events a writer committed and stopped before chaining', async () => {
    const db = database!
    const jobs = queues!
    // A writer that committed its change's audit event, then stopped before its chain call.
    const id = await withTenant(db, tenant, async (tx) => {
      const pending = pendingAuditInsert(tenant, {
        actor: 'starter',
        action: 'test.stranded',
        target: { kind: 'run', id: 'r-stranded' },
      })
      await tx.db.execute(pending.insert)
      return pending.id
    })
    const listed = () => withTenant(db, tenant, (tx) => listAudit(tx, { action: 'test.stranded' }))
    expect((await listed()).items).toEqual([])

    const lifecycle = createApprovalLifecycle({ database: db, jobs })
    const report = await reconcileOnce(
      { database: db, queues: jobs, lifecycle, log: silent, quietMs: QUIET_MS },
      new Date(),
    )

    expect(report.auditChained).toBe(1)
    expect((await listed()).items.map((e) => e.id)).toEqual([id])
    expect(await withTenant(db, tenant, (tx) => verifyAudit(tx))).toMatchObject({ ok: true })
  })
})
