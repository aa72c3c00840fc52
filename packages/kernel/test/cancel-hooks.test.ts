import { describe, expect, it } from 'vitest'
import { CancelledError, Graph, MemStore, always, end, subgraph } from '@weave/kernel'
import type { GraphOptions, State, StepContext, StepHook } from '@weave/kernel'
import { RecordingStore, deferred, readCheckpoint } from './helpers.js'

describe('cancellation', () => {
  it('stops a run whose signal is already aborted before any step, writing nothing', async () => {
    const rec = new RecordingStore()
    const ac = new AbortController()
    ac.abort()
    let calls = 0
    const g = new Graph('g', 'a').addStep('a', () => (calls++, {}))
    const r = await g.run({ x: 1 }, { store: rec.store, signal: ac.signal })
    expect(r).toMatchObject({ stopReason: 'cancelled', steps: 0, lastStep: 'a', state: { x: 1 } })
    expect(r.error).toBeInstanceOf(CancelledError)
    expect(calls).toBe(0)
    expect(rec.writes()).toEqual([])
  })

  it('never abandons a running step: it finishes, is checkpointed, and the run stops before the next', async () => {
    const store = new MemStore()
    const ac = new AbortController()
    const started = deferred()
    const release = deferred()
    const seen: boolean[] = []
    const ran: string[] = []
    const g = new Graph('g', 'a')
      .addStep(
        'a',
        async (_s, ctx) => {
          started.resolve()
          await release.promise
          seen.push(ctx.signal.aborted)
          ran.push('a')
          return { a: 1 }
        },
        always('b'),
      )
      .addStep('b', () => (ran.push('b'), { b: 1 }))
    const p = g.run({}, { store, signal: ac.signal, runId: 'r1' })
    await started.promise
    ac.abort()
    release.resolve()
    const r = await p
    expect(seen).toEqual([true])
    expect(r).toMatchObject({ stopReason: 'cancelled', steps: 1, lastStep: 'b', state: { a: 1 } })
    expect(r.error).toBeInstanceOf(CancelledError)
    expect(await readCheckpoint(store, 'g', 'r1')).toMatchObject({
      status: 'step_done',
      last_step: 'a',
    })

    const resumed = await g.resume('r1', {}, { store })
    expect(resumed).toMatchObject({ stopReason: 'completed', steps: 1, state: { a: 1, b: 1 } })
    expect(ran).toEqual(['a', 'b'])
  })

  it('aborts ctx.signal when the run signal aborts', async () => {
    const ac = new AbortController()
    const started = deferred<StepContext>()
    const g = new Graph('g', 'a').addStep('a', async (_s, ctx) => {
      started.resolve(ctx)
      await new Promise<void>((resolve) => ctx.signal.addEventListener('abort', () => resolve()))
      return {}
    })
    const p = g.run({}, { signal: ac.signal })
    const ctx = await started.promise
    expect(ctx.signal.aborted).toBe(false)
    ac.abort()
    await p
    expect(ctx.signal.aborted).toBe(true)
  })

  it('a step that throws because of the abort leaves a failed checkpoint; resume re-runs it', async () => {
    const store = new MemStore()
    const ac = new AbortController()
    const started = deferred()
    const thrown = new Error('aborted while fetching')
    let attempt = 0
    const g = new Graph('g', 'a')
      .addStep('a', () => ({ a: 1 }), always('b'))
      .addStep('b', async (_s, ctx) => {
        attempt++
        if (attempt > 1) return { b: 'ok' }
        started.resolve()
        await new Promise<void>((resolve) => ctx.signal.addEventListener('abort', () => resolve()))
        throw thrown
      })
    const p = g.run({}, { store, signal: ac.signal, runId: 'r1' })
    await started.promise
    ac.abort()
    const r = await p
    expect(r).toMatchObject({ stopReason: 'cancelled', lastStep: 'b', steps: 2 })
    expect(r.error).toBeInstanceOf(CancelledError)
    expect(r.error!.cause).toBe(thrown)
    expect(r.state).toMatchObject({ __error: 'aborted while fetching', __failed_step: 'b' })
    expect(await readCheckpoint(store, 'g', 'r1')).toMatchObject({
      status: 'failed',
      last_step: 'b',
    })

    const again = await g.resume('r1', {}, { store })
    expect(again).toMatchObject({ stopReason: 'completed', state: { a: 1, b: 'ok' } })
    expect(again.state.__error).toBeUndefined()
  })

  it('resuming with an aborted signal stops before the step due next', async () => {
    const store = new MemStore()
    const g = new Graph('g', 'a')
      .addStep('a', () => ({ __yield: true, __yield_phase: 'after_step' }), always('b'))
      .addStep('b', () => ({}))
    const r = await g.run({}, { store })
    const ac = new AbortController()
    ac.abort()
    const c = await g.resume(r.runId, {}, { store, signal: ac.signal })
    expect(c).toMatchObject({ stopReason: 'cancelled', steps: 0, lastStep: 'b' })
  })
})

describe('hooks', () => {
  function deploy(hooks: GraphOptions['hooks'], ran: string[] = []) {
    return new Graph('g', 'build', { hooks })
      .addStep('build', () => (ran.push('build'), { built: true }), always('deploy'))
      .addStep('deploy', () => (ran.push('deploy'), { deployed: true }), end())
  }

  it('a before hook vetoes a step by throwing (the KERNEL.md freeze example)', async () => {
    const store = new MemStore()
    const freeze = new Error('freeze')
    const ran: string[] = []
    const g = deploy(
      {
        before: [
          (step) => {
            if (step === 'deploy') throw freeze
          },
        ],
      },
      ran,
    )
    const r = await g.run({}, { store, runId: 'r1' })
    expect(r).toMatchObject({
      stopReason: 'hook_abort',
      lastStep: 'deploy',
      steps: 2,
      state: { built: true },
    })
    expect(r.error).toBe(freeze)
    expect(ran).toEqual(['build'])
    expect(await readCheckpoint(store, 'g', 'r1')).toMatchObject({ seq: 1, last_step: 'build' })
  })

  it('before hooks run in order and stop at the first throw', async () => {
    const order: string[] = []
    const r = await deploy({
      before: [
        (step) => void order.push(`1:${step}`),
        (step) => {
          order.push(`2:${step}`)
          if (step === 'deploy') throw new Error('no')
        },
        (step) => void order.push(`3:${step}`),
      ],
    }).run({})
    expect(r.stopReason).toBe('hook_abort')
    expect(order).toEqual(['1:build', '2:build', '3:build', '1:deploy', '2:deploy'])
  })

  it('hooks get the step name, the state and the step context', async () => {
    const seen: Array<[string, string, State, string, number]> = []
    const rec =
      (when: string): StepHook =>
      (step, state, ctx) =>
        void seen.push([when, step, state, ctx.step, ctx.seq])
    await deploy({ before: [rec('before')], after: [rec('after')] }).run({ in: 1 })
    expect(seen).toEqual([
      ['before', 'build', { in: 1 }, 'build', 1],
      ['after', 'build', { in: 1, built: true }, 'build', 1],
      ['before', 'deploy', { in: 1, built: true }, 'deploy', 2],
      ['after', 'deploy', { in: 1, built: true, deployed: true }, 'deploy', 2],
    ])
  })

  it('an after hook throw stops with hook_abort, the merged state, and nothing written for the step', async () => {
    const store = new MemStore()
    const r = await deploy({
      after: [
        (step) => {
          if (step === 'deploy') throw new Error('audit failed')
        },
      ],
    }).run({}, { store, runId: 'r1' })
    expect(r).toMatchObject({
      stopReason: 'hook_abort',
      lastStep: 'deploy',
      state: { built: true, deployed: true },
    })
    expect(r.error?.message).toBe('audit failed')
    expect(await readCheckpoint(store, 'g', 'r1')).toMatchObject({ seq: 1, last_step: 'build' })
  })

  it('after hooks run in order and stop at the first throw', async () => {
    const order: string[] = []
    await deploy({
      after: [
        () => {
          order.push('1')
          throw new Error('x')
        },
        () => void order.push('2'),
      ],
    }).run({})
    expect(order).toEqual(['1'])
  })

  it('wraps a non-Error hook throw', async () => {
    const r = await deploy({
      before: [
        () => {
          throw 'nope'
        },
      ],
    }).run({})
    expect(r.stopReason).toBe('hook_abort')
    expect(r.error).toBeInstanceOf(Error)
  })

  it('awaits async hooks', async () => {
    const r = await deploy({
      before: [
        async (step) => {
          await Promise.resolve()
          if (step === 'deploy') throw new Error('async veto')
        },
      ],
    }).run({})
    expect(r.stopReason).toBe('hook_abort')
  })

  it('cannot change state', async () => {
    const attempts: boolean[] = []
    const tamper: StepHook = (_step, state) => {
      try {
        ;(state as Record<string, unknown>).injected = true
        attempts.push(true)
      } catch {
        attempts.push(false)
      }
    }
    const r = await deploy({ before: [tamper], after: [tamper] }).run({})
    expect(r.stopReason).toBe('completed')
    expect(attempts).toEqual([false, false, false, false])
    expect(r.state.injected).toBeUndefined()
  })

  it('run for the steps of their own graph only, not a child graph', async () => {
    const parentSeen: string[] = []
    const childSeen: string[] = []
    const child = new Graph('child', 'c1', { hooks: { before: [(s) => void childSeen.push(s)] } })
      .addStep('c1', () => ({}), always('c2'))
      .addStep('c2', () => ({}))
    const parent = new Graph('parent', 'p1', {
      hooks: { before: [(s) => void parentSeen.push(s)] },
    })
      .addStep('p1', subgraph(child), always('p2'))
      .addStep('p2', () => ({}))
    const r = await parent.run({})
    expect(r.stopReason).toBe('completed')
    expect(parentSeen).toEqual(['p1', 'p2'])
    expect(childSeen).toEqual(['c1', 'c2'])
  })

  it('leave a run resumable after a veto', async () => {
    const store = new MemStore()
    let veto = true
    const ran: string[] = []
    const g = deploy(
      {
        before: [
          (step) => {
            if (veto && step === 'deploy') throw new Error('freeze')
          },
        ],
      },
      ran,
    )
    const r = await g.run({}, { store })
    veto = false
    const again = await g.resume(r.runId, {}, { store })
    expect(again).toMatchObject({ stopReason: 'completed', steps: 1 })
    expect(ran).toEqual(['build', 'deploy'])
  })
})
