import { describe, expect, it } from 'vitest'
import {
  ApprovalTimeoutJob,
  JOBS,
  QUEUES,
  ResumeJob,
  RunJob,
  WaitElapsedJob,
  jobId,
  jobKindOf,
  type JobKind,
} from '@weave/db'

const runId = '7f3c0b8e-1d2a-4c5b-9e6f-0a1b2c3d4e5f'
const otherId = '0b8f5a52-6c1e-4f7a-9a43-2b1d0c9e7f11'

describe('the job catalogue', () => {
  it('names queues and jobs in kebab-case', () => {
    const names = [...Object.values(QUEUES), ...Object.values(JOBS).map((j) => j.name)]
    for (const name of names) expect(name).toMatch(/^[a-z]+(-[a-z]+)*$/)
  })

  it('finds each kind from its queue and name, and nothing else', () => {
    for (const [kind, spec] of Object.entries(JOBS)) {
      expect(jobKindOf(QUEUES[spec.queue], spec.name)).toBe(kind)
    }
    expect(jobKindOf(QUEUES.runs, 'deliver')).toBeUndefined()
    expect(jobKindOf('elsewhere', 'run')).toBeUndefined()
  })

  it('accepts well-formed payloads and refuses malformed ones, client input included', () => {
    expect(RunJob.parse({ runId, tenant: 't' })).toEqual({ runId, tenant: 't' })
    expect(RunJob.safeParse({ runId: 'x', tenant: 't' }).success).toBe(false)
    expect(RunJob.safeParse({ runId, tenant: 't', extra: 1 }).success).toBe(false)
    const resume = { runId, tenant: 't', reason: 'approval-decided', atSeq: 2, approvalId: otherId }
    expect(ResumeJob.safeParse(resume).success).toBe(true)
    // Input never travels in a job: the worker reads it from Postgres.
    expect(ResumeJob.safeParse({ ...resume, input: { ok: true } }).success).toBe(false)
    expect(ResumeJob.safeParse({ ...resume, reason: 'run' }).success).toBe(false)
    expect(WaitElapsedJob.safeParse({ runId, tenant: 't', step: 'w', seq: 2 }).success).toBe(true)
    expect(WaitElapsedJob.safeParse({ runId, tenant: 't', step: 'w', seq: 1.5 }).success).toBe(
      false,
    )
    expect(ApprovalTimeoutJob.safeParse({ approvalId: runId, tenant: '' }).success).toBe(false)
  })

  it('makes distinct job ids BullMQ accepts: no colon, never an integer', () => {
    const ids = [
      jobId('run', { runId, tenant: 't' }),
      jobId('run', { runId, tenant: 't', takeover: '17' }),
      jobId('resume', {
        runId,
        tenant: 't',
        reason: 'approval-decided',
        atSeq: 2,
        approvalId: otherId,
      }),
      jobId('resume', { runId, tenant: 't', reason: 'input', atSeq: 2 }),
      jobId('resume', { runId, tenant: 't', reason: 'retry', atSeq: 2 }),
      jobId('resume', { runId, tenant: 't', reason: 'input', atSeq: 3 }),
      jobId('waitElapsed', { runId, tenant: 't', step: 'w', seq: 3 }),
      jobId('approvalTimeout', { approvalId: runId, tenant: 't' }),
      jobId('deliver', { deliveryId: runId, tenant: 't' }),
      jobId('reconcile', {}),
    ]
    for (const id of ids) {
      expect(id).not.toContain(':')
      expect(`${parseInt(id, 10)}`).not.toBe(id)
    }
    expect(jobId('run', { runId, tenant: 't' })).toBe(runId)
    expect(new Set(ids).size).toBe(ids.length)
  })

  it('gives one settled approval one resume, whoever enqueues it', () => {
    const a = { runId, tenant: 't', reason: 'approval-decided', atSeq: 2, approvalId: otherId }
    const b = { ...a, reason: 'approval-expired', atSeq: 5 } as const
    expect(jobId('resume', a as never)).toBe(jobId('resume', b))
    const kinds: JobKind[] = Object.keys(JOBS) as JobKind[]
    expect(kinds).toContain('reconcile')
  })
})
