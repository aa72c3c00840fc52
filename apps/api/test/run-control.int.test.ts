import { getApproval, listRunEvents, withTenant } from '@weave/db'
import { RunView } from '../src/schemas/runs.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { randomTenant } from './support/database.js'
import { moveRun, seedApproval, seedRun } from './support/fixtures.js'
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
  it("resumes a run waiting on an input step with input valid against the step's schema", async () => {
    const run = await seedRun(h.database, tenant)
    const waitingOn = {
      kind: 'input',
      step: 'ask',
      atSeq: 3,
      prompt: 'Where?',
      schema: ADDRESS_SCHEMA,
      saveAs: 'where',
    }
    await moveRun(h.database, tenant, run.id, 'waiting', waitingOn)
    const bad = expectProblem(
      await resume(run.id, { input: { address: 12 } }),
      400,
      'validation-failed',
    )
    expect(bad.errors?.map((e) => e.path)).toEqual(['/body/input/address'])
    expect(await h.queues.runs.getJob(`resume-input-${run.id}-3`)).toBeUndefined()
    const resumed = expectJson(
      await resume(run.id, { input: { address: '1 Main St' } }),
      202,
      RunView,
    )
    expect(resumed.id).toBe(run.id)
    const job = await h.queues.runs.getJob(`resume-input-${run.id}-3`)
    expect(job?.name).toBe('resume')
    expect(job?.data).toEqual({
      runId: run.id,
      tenant,
      input: { address: '1 Main St' },
      reason: 'input',
      atSeq: 3,
    })
  })

  it('retries a failed run once per failure', async () => {
    const run = await seedRun(h.database, tenant)
    const failed = await moveRun(h.database, tenant, run.id, 'failed')
    expectJson(await resume(run.id), 202)
    expectJson(await resume(run.id), 202)
    const job = await h.queues.runs.getJob(`resume-retry-${run.id}-${failed.updatedAt.getTime()}`)
    expect(job?.data).toEqual({ runId: run.id, tenant, input: {}, reason: 'retry' })
    expect(
      (await h.queues.runs.getJobs(['waiting'])).filter((j) => j.data.runId === run.id),
    ).toHaveLength(1)
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
