import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { Graph, MemStore, condition, END } from '@weave/kernel'
import type { State } from '@weave/kernel'
import { state } from './arbitraries.js'

describe('checkpoint properties', () => {
  it('checkpoints survive a JSON round trip: a resumed step sees exactly the saved state', async () => {
    await fc.assert(
      fc.asyncProperty(state, state, async (input, delta) => {
        const store = new MemStore()
        const seen: State[] = []
        const g = new Graph('rt', 'a', { checkpointHistory: -1 }).addStep('a', (s, ctx) => {
          seen.push(s)
          return ctx.resumeInput ? {} : { ...delta, __yield: true }
        })
        const r = await g.run(input, { store, runId: 'r' })
        const raw = (await store.get('checkpoint:rt', 'r'))!
        const cp = JSON.parse(raw) as { state: State }
        expect(JSON.stringify(JSON.parse(raw))).toBe(raw)
        expect(cp.state).toEqual(r.state)
        expect(cp.state).toEqual({ ...input, ...delta })
        expect(await store.get('checkpoint:rt', 'r/000000000001')).toBe(raw)

        await g.resume('r', {}, { store })
        expect(seen[1]).toEqual(r.state)
        const [info] = await g.history('r', { store })
        expect(info).toMatchObject({
          seq: 1,
          lastStep: 'a',
          status: 'yielded',
          yieldPhase: 'mid_step',
        })
      }),
      { numRuns: 60 },
    )
  })

  it('history sequence numbers strictly ascend across yields, resumes and pruning', async () => {
    const scenario = fc.record({
      n: fc.integer({ min: 1, max: 14 }),
      yields: fc.dictionary(
        fc.integer({ min: 1, max: 14 }).map(String),
        fc.constantFrom('mid_step', 'after_step'),
        { noNullPrototype: true },
      ),
      keep: fc.constantFrom(-1, 1, 2, 5, 20),
    })
    await fc.assert(
      fc.asyncProperty(scenario, async ({ n, yields, keep }) => {
        const store = new MemStore()
        const g = new Graph('h', 'x', { checkpointHistory: keep }).addStep(
          'x',
          (s, ctx) => {
            const c = (s.c as number) + 1
            const phase = yields[String(c)]
            if (phase === 'mid_step' && !ctx.resumeInput) return { __yield: true }
            if (phase === 'after_step') return { c, __yield: true, __yield_phase: 'after_step' }
            return { c }
          },
          condition((s) => (s.c as number) < n, 'x', END),
        )
        let r = await g.run({ c: 0 }, { store, runId: 'r' })
        let total = r.steps
        for (let i = 0; r.stopReason === 'yielded' && i < 50; i++) {
          r = await g.resume('r', {}, { store })
          total += r.steps
        }
        expect(r.stopReason).toBe('completed')
        const seqs = (await g.history('r', { store })).map((c) => c.seq)
        for (let i = 1; i < seqs.length; i++) expect(seqs[i]!).toBeGreaterThan(seqs[i - 1]!)
        const all = Array.from({ length: total }, (_, i) => i + 1)
        expect(seqs).toEqual(keep === -1 ? all : all.slice(-keep))
      }),
      { numRuns: 60 },
    )
  })
})
