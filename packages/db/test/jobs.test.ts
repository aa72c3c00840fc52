import { describe, expect, it } from 'vitest'
import {
  ApprovalTimeoutJob,
  JOB_NAMES,
  RUNS_QUEUE,
  ResumeJob,
  RunJob,
  TIMERS_QUEUE,
  WaitElapsedJob,
  approvalTimeoutJobId,
  resumeJobId,
  runJobId,
  waitJobId,
} from '@weave/db'

const runId = '7f3c0b8e-1d2a-4c5b-9e6f-0a1b2c3d4e5f'

describe('job definitions', () => {
  it('names queues and jobs in kebab-case', () => {
    for (const name of [RUNS_QUEUE, TIMERS_QUEUE, ...Object.values(JOB_NAMES)]) {
      expect(name).toMatch(/^[a-z]+(-[a-z]+)*$/)
    }
  })

  it('accepts well-formed payloads and refuses malformed ones', () => {
    expect(RunJob.parse({ runId, tenant: 't' })).toEqual({ runId, tenant: 't' })
    expect(RunJob.safeParse({ runId: 'x', tenant: 't' }).success).toBe(false)
    expect(RunJob.safeParse({ runId, tenant: 't', extra: 1 }).success).toBe(false)
    expect(
      ResumeJob.safeParse({ runId, tenant: 't', input: { ok: true }, reason: 'approval-decided' })
        .success,
    ).toBe(true)
    expect(ResumeJob.safeParse({ runId, tenant: 't', input: [], reason: 'input' }).success).toBe(
      false,
    )
    expect(WaitElapsedJob.safeParse({ runId, tenant: 't', step: 'w', seq: 2 }).success).toBe(true)
    expect(WaitElapsedJob.safeParse({ runId, tenant: 't', step: 'w', seq: 1.5 }).success).toBe(
      false,
    )
    expect(ApprovalTimeoutJob.safeParse({ approvalId: runId, tenant: '' }).success).toBe(false)
  })

  it('makes job ids BullMQ accepts: no colon, never an integer', () => {
    const ids = [
      runJobId(runId),
      resumeJobId(runId),
      waitJobId(runId, 3),
      approvalTimeoutJobId(runId),
    ]
    for (const id of ids) {
      expect(id).not.toContain(':')
      expect(`${parseInt(id, 10)}`).not.toBe(id)
    }
    expect(runJobId(runId)).toBe(runId)
    expect(new Set(ids).size).toBe(ids.length)
  })
})
