import { getApproval, getRun, listAudit, listRunEvents, withTenant } from '@weave/db'
import { RunView } from '../src/schemas/runs.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { randomTenant } from './support/database.js'
import { moveRun, seedApproval, seedRun, setCheckpointSeq } from './support/fixtures.js'
import { createHarness, expectJson, expectProblem, type Harness } from './support/harness.js'

let h: Harness
let token: string
const tenant = randomTenant()

beforeAll(async () => {
  h = await createHarness('api_run_control')
  token = await h.token(tenant, 'alice')
})
afterAll(async () => h.close())

const cancel = (id: string) => h.call({ method: 'POST', url: `/v1/runs/${id}/cancel`, token })
const resume = (id: string, body: unknown = {}) =>
  h.call({ method: 'POST', url: `/v1/runs/${id}/resume`, token, body })
const eventTypes = async (runId: string) =>
  (await withTenant(h.database, tenant, (tx) => listRunEvents(tx, runId))).map((e) => e.type)

const ADDRESS_SCHEMA = {
  type: 'object',
  required: ['address'],
  properties: { address: { type: 'string' } },
}

describe('POST /v1/runs/{id}/cancel', () => {
  it('cancels a queued run at once, with a run.cancelled event', async () => {
    const run = await seedRun(h.database, tenant)
    const cancelled = expectJson(await cancel(run.id), 202, RunView)
    expect(cancelled).toMatchObject({ id: run.id, status: 'cancelled', cancelRequested: true })
    expect(cancelled.finishedAt).toEqual(expect.stringMatching(/Z$/))
    expect(await eventTypes(run.id)).toEqual(['run.cancelled'])
  })

  it('cancels a waiting run and its pending approvals', async () => {
    const { run, approvalId } = await seedApproval(h.database, tenant)
    const cancelled = expectJson(await cancel(run.id), 202, RunView)
    expect(cancelled.status).toBe('cancelled')
    expect(cancelled.pendingApprovals).toEqual([])
    expect(cancelled.waitingOn).toBeNull()
    const approval = await withTenant(h.database, tenant, (tx) => getApproval(tx, approvalId))
    expect(approval?.status).toBe('cancelled')
  })

  it('asks a running run to stop at its next step, leaving it running', async () => {
    const run = await seedRun(h.database, tenant)
    await moveRun(h.database, tenant, run.id, 'running')
    const requested = expectJson(await cancel(run.id), 202, RunView)
    expect(requested).toMatchObject({ status: 'running', cancelRequested: true })
    expect(await eventTypes(run.id)).toEqual([])
  })

  it('answers 409 for a finished run and 404 for an unknown one', async () => {
    const run = await seedRun(h.database, tenant)
    await moveRun(h.database, tenant, run.id, 'completed')
    expectProblem(await cancel(run.id), 409, 'run-finished')
    expectProblem(await cancel(crypto.randomUUID()), 404, 'run-not-found')
    expectProblem(await cancel('not-a-uuid'), 404, 'run-not-found')
  })
})

describe('POST /v1/runs/{id}/resume', () => {
  /** A run waiting on the input step `ask` at checkpoint `seq`, as a worker leaves it. */
  async function waitingForInput(seq: number) {
    const run = await seedRun(h.database, tenant)
    await moveRun(h.database, tenant, run.id, 'waiting', {
      kind: 'input',
      step: 'ask',
      atSeq: seq,
      prompt: 'Where?',
      schema: ADDRESS_SCHEMA,
      saveAs: 'where',
    })
    await setCheckpointSeq(h.database, tenant, run.id, seq)
    return run
  }
  const pendingResume = async (runId: string) =>
    (await withTenant(h.database, tenant, (tx) => getRun(tx, runId)))?.pendingResume

  it("resumes a run waiting on an input step with input valid against the step's schema", async () => {
    const run = await waitingForInput(3)
    const bad = expectProblem(
      await resume(run.id, { input: { address: 12 } }),
      400,
      'validation-failed',
    )
    expect(bad.errors?.map((e) => e.path)).toEqual(['/body/input/address'])
    expect(await h.queues.runs.getJob(`resume-input-${run.id}-3`)).toBeUndefined()
    expect(await pendingResume(run.id)).toBeNull()
    const resumed = expectJson(
      await resume(run.id, { input: { address: '1 Main St' } }),
      202,
      RunView,
    )
    expect(resumed.id).toBe(run.id)
    const job = await h.queues.runs.getJob(`resume-input-${run.id}-3`)
    expect(job?.name).toBe('resume')
    // The job only points at the run: the input waits on the run row for the worker.
    expect(job?.data).toEqual({ runId: run.id, tenant, reason: 'input', atSeq: 3 })
    expect(await pendingResume(run.id)).toMatchObject({
      reason: 'input',
      input: { address: '1 Main St' },
      atSeq: 3,
      by: 'alice',
    })
  })

  it('takes one of two concurrent resumes: one 202, one 409, one audit event', async () => {
    const run = await waitingForInput(2)
    const answers = await Promise.all([
      resume(run.id, { input: { address: 'first' } }),
      resume(run.id, { input: { address: 'second' } }),
    ])
    expect(answers.map((a) => a.statusCode).sort()).toEqual([202, 409])
    const refused = answers.find((a) => a.statusCode === 409)
    expectProblem(refused as (typeof answers)[number], 409, 'run-not-resumable')
    const taken = answers.findIndex((a) => a.statusCode === 202)
    expect(await pendingResume(run.id)).toMatchObject({
      input: { address: taken === 0 ? 'first' : 'second' },
    })
    const audit = await withTenant(h.database, tenant, (tx) =>
      listAudit(tx, { targetId: run.id, limit: 50 }),
    )
    expect(audit.items.map((e) => e.action)).toEqual(['run.resumed'])
  })

  it('retries a failed run once: a second retry waits for the first', async () => {
    const run = await seedRun(h.database, tenant)
    await moveRun(h.database, tenant, run.id, 'failed')
    expectJson(await resume(run.id), 202)
    expectProblem(await resume(run.id), 409, 'run-not-resumable')
    const job = await h.queues.runs.getJob(`resume-retry-${run.id}-0`)
    expect(job?.data).toEqual({ runId: run.id, tenant, reason: 'retry', atSeq: 0 })
    expect(
      (await h.queues.runs.getJobs(['waiting'])).filter((j) => j.data.runId === run.id),
    ).toHaveLength(1)
  })

  it('refuses resume input with a reserved key or an approval record key, naming it', async () => {
    const run = await waitingForInput(1)
    const reserved = expectProblem(
      await resume(run.id, { input: { address: 'x', __budget: 1000 } }),
      400,
      'validation-failed',
    )
    expect(reserved.errors?.map((e) => e.path)).toEqual(['/body/input/__budget'])
    const failed = await seedRun(h.database, tenant)
    await moveRun(h.database, tenant, failed.id, 'failed')
    const forged = expectProblem(
      await resume(failed.id, { input: { review: { status: 'approved' } } }),
      400,
      'validation-failed',
    )
    expect(forged.errors?.map((e) => e.path)).toEqual(['/body/input/review'])
    expect(await pendingResume(run.id)).toBeNull()
    expect(await pendingResume(failed.id)).toBeNull()
  })

  it('answers 409 for a run waiting on an approval or a timer, and for queued, running or finished runs', async () => {
    const { run: onApproval } = await seedApproval(h.database, tenant)
    const approvalProblem = expectProblem(await resume(onApproval.id), 409, 'run-not-resumable')
    expect(approvalProblem.detail).toContain('approval')
    const onTimer = await seedRun(h.database, tenant)
    const until = new Date(Date.now() + 60_000).toISOString()
    await moveRun(h.database, tenant, onTimer.id, 'waiting', {
      kind: 'wait',
      step: 'pause',
      until,
      atSeq: 1,
    })
    expectProblem(await resume(onTimer.id), 409, 'run-not-resumable')
    const queued = await seedRun(h.database, tenant)
    expectProblem(await resume(queued.id), 409, 'run-not-resumable')
    const running = await seedRun(h.database, tenant)
    await moveRun(h.database, tenant, running.id, 'running')
    expectProblem(await resume(running.id), 409, 'run-not-resumable')
    const completed = await seedRun(h.database, tenant)
    await moveRun(h.database, tenant, completed.id, 'completed')
    expectProblem(await resume(completed.id), 409, 'run-not-resumable')
    const refused = new Set([onApproval.id, onTimer.id, queued.id, running.id, completed.id])
    const jobs = await h.queues.runs.getJobs(['waiting', 'delayed'])
    expect(jobs.filter((job) => refused.has(job.data.runId))).toEqual([])
  })

  it('answers 404 for an unknown run and 400 for unknown body fields', async () => {
    expectProblem(await resume(crypto.randomUUID()), 404, 'run-not-found')
    const run = await seedRun(h.database, tenant)
    const problem = expectProblem(await resume(run.id, { input: {}, extra: 1 }), 400)
    expect(problem.errors?.[0]?.path).toBe('/body/extra')
  })
})
