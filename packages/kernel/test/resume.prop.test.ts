import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { END, Graph, MemStore, branchFunc, condition, defaultMergeConfig, sum } from '@weave/kernel'
import type { GraphOptions, RunResult, State, StepHook } from '@weave/kernel'

/** What a test does to stop a run early. */
interface Interrupt {
  /** before-hook veto at these seqs (once each) */
  veto: Set<number>
  /** abort the signal in an after-hook at these seqs (once each) */
  cancel: Set<number>
  current: AbortController
}

/** A deterministic graph with merge policies and branches; `calls` counts step executions. */
function build(calls: { n: number }, interrupt: Interrupt, options: GraphOptions = {}) {
  const before: StepHook = (_step, _s, ctx) => {
    if (interrupt.veto.delete(ctx.seq)) throw new Error('veto')
  }
  const after: StepHook = (_step, _s, ctx) => {
    if (interrupt.cancel.delete(ctx.seq)) interrupt.current.abort()
  }
  const more = (s: Readonly<State>) => (s.i as number) < (s.limit as number)
  return new Graph('prop', 'inc', {
    ...options,
    merge: defaultMergeConfig().register('total', sum),
    hooks: { before: [before], after: [after] },
  })
    .addStep(
      'inc',
      (s) => {
        calls.n++
        const i = (s.i as number) + 1
        return { i, total: i * (s.k as number), messages: [`inc${i}`] }
      },
      branchFunc(
        (s) => ((s.i as number) % 3 === 0 ? 'three' : 'other'),
        { three: 'fizz' },
        'plain',
      ),
    )
    .addStep(
      'fizz',
      (s) => (calls.n++, { messages: ['fizz'], fizzed: (s.i as number) * 10 }),
      condition(more, 'inc', END),
    )
    .addStep(
      'plain',
      (s) => (calls.n++, { last: `${String(s.tag)}:${String(s.i)}` }),
      condition(more, 'inc', END),
    )
}

const noInterrupt = (): Interrupt => ({
  veto: new Set(),
  cancel: new Set(),
  current: new AbortController(),
})

const input = fc.record({
  i: fc.integer({ min: 0, max: 3 }),
  limit: fc.integer({ min: 1, max: 7 }),
  k: fc.integer({ min: -5, max: 5 }),
  tag: fc.string({ maxLength: 3 }),
})

const mode = fc.constantFrom('veto', 'cancel', 'stream', 'max_iter')

describe('interrupted runs', () => {
  it('a run interrupted after any step(s) and resumed ends like one never interrupted', async () => {
    await fc.assert(
      fc.asyncProperty(
        input,
        mode,
        fc.array(fc.nat(), { minLength: 1, maxLength: 3 }),
        fc.boolean(),
        async (start, how, cuts, budgeted) => {
          const options: GraphOptions = budgeted ? { stepBudget: 1000 } : {}
          const baseCalls = { n: 0 }
          const base = await build(baseCalls, noInterrupt(), options).run(start, { runId: 'r' })
          expect(base.stopReason).toBe('completed')
          const total = base.steps
          fc.pre(total > 1)
          const ks = [...new Set(cuts.map((c) => 1 + (c % (total - 1))))].sort((a, b) => a - b)

          const store = new MemStore()
          const calls = { n: 0 }
          const ctl = noInterrupt()
          if (how === 'veto') ctl.veto = new Set(ks.map((k) => k + 1))
          if (how === 'cancel') ctl.cancel = new Set(ks)
          const stepLimit = how === 'max_iter' ? ks[0]! : undefined
          const g = build(
            calls,
            ctl,
            stepLimit ? { ...options, maxIterations: stepLimit } : options,
          )

          let r: RunResult | undefined
          let invocations = 1
          if (how === 'stream') {
            let seen = 0
            for await (const e of g.stream(start, { store, runId: 'r' })) {
              if (e.type === 'result') r = e.result
              else if (++seen === ks[0]) break
            }
          } else {
            r = await g.run(start, { store, runId: 'r', signal: ctl.current.signal })
          }
          while (r?.stopReason !== 'completed') {
            expect(['hook_abort', 'cancelled', 'max_iter', undefined]).toContain(r?.stopReason)
            ctl.current = new AbortController()
            r = await g.resume('r', {}, { store, signal: ctl.current.signal })
            if (++invocations > 20) throw new Error('the run never completed')
          }
          expect(r.state).toEqual(base.state)
          expect(r.lastStep).toBe(base.lastStep)
          expect(calls.n).toBe(baseCalls.n)
          expect(invocations).toBeGreaterThan(1)
        },
      ),
      { numRuns: 120 },
    )
  })
})
