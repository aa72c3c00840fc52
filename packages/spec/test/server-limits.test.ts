import { describe, expect, it } from 'vitest'
import { MemStore } from '@weave/kernel'
import { compileGraph, GraphSpec, MAX_STEPS, validateSpec, type CompileDeps } from '@weave/spec'

/** A chain of `count` set steps, s0 → s1 → … → the end. */
function chain(count: number) {
  const steps: Record<string, unknown> = {}
  for (let i = 0; i < count; i++) {
    steps[`s${i}`] = { kind: 'set', values: {}, next: i + 1 < count ? `s${i + 1}` : null }
  }
  return { entry: 's0', steps }
}

/** Runs a one-step loop that counts its ticks in `n`. */
async function runLoop(limits: object | undefined, maxima: CompileDeps['maxima']) {
  const spec = GraphSpec.parse({
    entry: 'tick',
    ...(limits ? { limits } : {}),
    steps: { tick: { kind: 'set', values: { n: 'n + 1' }, next: 'tick' } },
  })
  const { graph } = await compileGraph('loop', spec, maxima ? { maxima } : {})
  const r = await graph.run({ n: 0 }, { store: new MemStore() })
  return { stopReason: r.stopReason, ticks: r.state.n }
}

describe('the step limit', () => {
  it(`accepts ${MAX_STEPS} steps and refuses one more, at /steps`, async () => {
    expect(GraphSpec.safeParse(chain(MAX_STEPS)).success).toBe(true)
    const result = await validateSpec(chain(MAX_STEPS + 1))
    expect(result).toEqual({
      ok: false,
      problems: [{ path: '/steps', message: `a graph has at most ${MAX_STEPS} steps` }],
    })
  })

  it('refuses an oversized spec without parsing its steps', () => {
    const spec = chain(MAX_STEPS + 1)
    spec.steps.s7 = { kind: 'no-such-kind' }
    const parsed = GraphSpec.safeParse(spec)
    expect(parsed.error?.issues.map((i) => i.path)).toEqual([['steps']])
  })
})

describe('server maxima for limits', () => {
  it('lower a graph’s maxIterations and stepBudget to the ceiling', async () => {
    expect(await runLoop({ maxIterations: 50 }, { maxIterations: 3 })).toEqual({
      stopReason: 'max_iter',
      ticks: 3,
    })
    expect(await runLoop({ stepBudget: 50 }, { stepBudget: 2 })).toEqual({
      stopReason: 'budget',
      ticks: 2,
    })
  })

  it('keep a graph’s own limits when they are under the ceiling', async () => {
    expect(await runLoop({ maxIterations: 2 }, { maxIterations: 10 })).toEqual({
      stopReason: 'max_iter',
      ticks: 2,
    })
  })

  it('apply to a graph that sets no limits', async () => {
    expect(await runLoop(undefined, { stepBudget: 4 })).toEqual({ stopReason: 'budget', ticks: 4 })
    expect(await runLoop(undefined, { maxIterations: 5 })).toEqual({
      stopReason: 'max_iter',
      ticks: 5,
    })
  })

  it('never raise the kernel’s default of 100 iterations', async () => {
    expect(await runLoop(undefined, { maxIterations: 1000 })).toEqual({
      stopReason: 'max_iter',
      ticks: 100,
    })
  })
})
