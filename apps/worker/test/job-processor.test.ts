import { randomUUID } from 'node:crypto'
import { QUEUES } from '@weave/db'
import { UnrecoverableError, type Job } from 'bullmq'
import { describe, expect, it } from 'vitest'
import { jobProcessor } from '../src/processors/job-processor.js'

const jobOf = (queue: string, name: string, data: unknown) =>
  ({ id: 'j-1', queueName: queue, name, data, timestamp: 1_000, processedOn: 1_500 }) as Job

describe('a queue processor built from handlers per job kind', () => {
  const runId = randomUUID()
  const waits: Array<[string, number]> = []
  const metrics = { observeQueueWait: (queue: string, s: number) => waits.push([queue, s]) }
  const seen: unknown[] = []
  const processor = jobProcessor(metrics as never, {
    waitElapsed: async (payload) => {
      seen.push(payload)
      return 'fired'
    },
  })

  it('hands a known job its checked payload and records how long it waited', async () => {
    const payload = { runId, tenant: 't', step: 'pause', seq: 3 }
    expect(await processor(jobOf(QUEUES.timers, 'wait-elapsed', payload))).toBe('fired')
    expect(seen).toEqual([payload])
    expect(waits).toEqual([[QUEUES.timers, 0.5]])
  })

  it('refuses, as unrecoverable, a job it has no handler for and a payload off its schema', async () => {
    await expect(
      processor(jobOf(QUEUES.timers, 'approval-timeout', { approvalId: runId, tenant: 't' })),
    ).rejects.toThrow(UnrecoverableError)
    await expect(processor(jobOf(QUEUES.timers, 'no-such-job', {}))).rejects.toThrow(
      /unknown job no-such-job/,
    )
    await expect(
      processor(jobOf(QUEUES.timers, 'wait-elapsed', { runId: 'not-a-uuid', seq: 'x' })),
    ).rejects.toThrow(UnrecoverableError)
    expect(seen).toHaveLength(1)
  })
})
