import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { until } from './support/test-services.js'
import { startWorkerTestbed, type WorkerTestbed } from './support/worker-testbed.js'

// What one tenant's graph may take of what every tenant shares: the server's ceilings on a
// graph's limits and on the state a step may checkpoint hold whatever the graph says.
const MAX_STATE_BYTES = 4096
const STEP_BUDGET_CEILING = 5

let bed: WorkerTestbed

beforeAll(async () => {
  bed = await startWorkerTestbed('worker-limits', {
    maxStateBytes: MAX_STATE_BYTES,
    maxima: { stepBudget: STEP_BUDGET_CEILING },
  })
})

afterAll(() => bed?.close())

const start = (name: string, spec: unknown, input?: Record<string, unknown>) =>
  bed.start(name, spec, input)

const finished = (id: string) =>
  until(
    () => bed.runOf(id),
    (r) => r?.status === 'completed' || r?.status === 'failed',
    'the run to finish',
  )

describe('server-wide limits', () => {
  it('fails a run whose step would checkpoint more state than the limit, naming the step', async () => {
    const id = await start('grows', {
      entry: 'small',
      steps: {
        small: { kind: 'set', values: { note: "'fits'" }, next: 'grow' },
        grow: { kind: 'set', values: { blob: "$pad('', 8000, 'x')" }, next: 'after' },
        after: { kind: 'set', values: { reached: 'true' } },
      },
    })
    const run = await finished(id)
    expect(run).toMatchObject({ status: 'failed', lastStep: 'grow' })
    expect(run?.error).toMatchObject({ step: 'grow', message: expect.stringMatching(/4096/) })
    // The step before it was kept; nothing of the oversized state or after it was.
    expect(run?.checkpointSeq).toBe(1)
  })

  it('stops a self-loop at the server ceiling of the step budget, whatever the graph asks', async () => {
    const loop = (limits: object) => ({
      entry: 'spin',
      limits,
      steps: { spin: { kind: 'set', values: { n: 'n + 1' }, next: 'spin' } },
    })
    const unlimited = await finished(await start('spin-default', loop({}), { n: 0 }))
    const greedy = await finished(
      await start('spin-greedy', loop({ stepBudget: 1000, maxIterations: 1000 }), { n: 0 }),
    )
    for (const run of [unlimited, greedy]) {
      expect(run).toMatchObject({ status: 'failed', stopReason: 'budget' })
      expect(run?.steps).toBe(STEP_BUDGET_CEILING)
    }
  })
})
