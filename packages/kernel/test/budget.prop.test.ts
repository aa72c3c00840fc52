import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { Graph, MemStore, always, subgraph } from '@weave/kernel'
import type { RunResult } from '@weave/kernel'

describe('budget properties', () => {
  it('total steps across all invocations never exceed the initial budget', async () => {
    const scenario = fc.record({
      budget: fc.integer({ min: 0, max: 12 }),
      yieldEvery: fc.integer({ min: 1, max: 5 }),
      phase: fc.constantFrom('mid_step', 'after_step'),
      maxIterations: fc.integer({ min: 1, max: 6 }),
      cancelAt: fc.array(fc.integer({ min: 1, max: 14 }), { maxLength: 3 }),
      child: fc.boolean(),
    })
    await fc.assert(
      fc.asyncProperty(
        scenario,
        async ({ budget, yieldEvery, phase, maxIterations, cancelAt, child }) => {
          const store = new MemStore()
          const cancels = new Set(cancelAt)
          let ac = new AbortController()
          let executed = 0
          const inner = new Graph('inner', 'c', { stepBudget: 1000 })
            .addStep('c', () => (executed++, {}), always('d'))
            .addStep('d', () => (executed++, {}))
          const g = new Graph('b', 'x', {
            stepBudget: budget,
            maxIterations,
            hooks: { after: [(_step, _s, ctx) => void (cancels.delete(ctx.seq) && ac.abort())] },
          })
            .addStep(
              'x',
              (s, ctx) => {
                executed++
                const n = (s.n as number) + 1
                if (n % yieldEvery === 0 && !ctx.resumeInput) {
                  return phase === 'mid_step'
                    ? { __yield: true }
                    : { n, __yield: true, __yield_phase: 'after_step' }
                }
                return { n }
              },
              always(child ? 'sub' : 'x'),
            )
            .addStep('sub', subgraph(inner, { output: () => ({}) }), always('x'))

          let r: RunResult = await g.run({ n: 0 }, { store, runId: 'r', signal: ac.signal })
          let total = r.steps
          let rounds = 0
          while (r.stopReason !== 'budget') {
            expect(['yielded', 'max_iter', 'cancelled']).toContain(r.stopReason)
            expect(++rounds).toBeLessThan(100)
            ac = new AbortController()
            r = await g.resume('r', {}, { store, signal: ac.signal })
            total += r.steps
          }
          expect(total).toBeLessThanOrEqual(budget)
          expect(r.state.__budget_remaining).toBe(0)
          if (!child) {
            expect(total).toBe(budget)
            expect(executed).toBe(budget)
          } else {
            expect(executed).toBeLessThanOrEqual(budget)
          }
        },
      ),
      { numRuns: 120 },
    )
  })
})
