import { describe, expect, it } from 'vitest'
import {
  CheckpointNotFoundError,
  Graph,
  MemStore,
  always,
  branch,
  defaultMergeConfig,
  end,
} from '@weave/kernel'
import type { State, StepContext } from '@weave/kernel'
import { readCheckpoint } from './helpers.js'

function approval(calls: Array<{ state: State; ctx: StepContext }>) {
  return new Graph('ship', 'approve').addStep(
    'approve',
    (s, ctx) => {
      calls.push({ state: s, ctx })
      return s.ok === undefined ? { __yield: true, ask: 'ship?' } : { shipped: s.ok }
    },
    end(),
  )
}

describe('yield', () => {
  it('runs the KERNEL.md example: yield, then resume re-runs the step with the input', async () => {
    const store = new MemStore()
    const calls: Array<{ state: State; ctx: StepContext }> = []
    const g = approval(calls)
    const r = await g.run({}, { store })
    expect(r.stopReason).toBe('yielded')
    expect(r.yielded).toBe(true)
    expect(r.lastStep).toBe('approve')
    expect(r.steps).toBe(1)
    expect(r.error).toBeUndefined()
    expect(r.state).toEqual({ ask: 'ship?' })

    const done = await g.resume(r.runId, { ok: true }, { store })
    expect(done.stopReason).toBe('completed')
    expect(done.runId).toBe(r.runId)
    expect(done.steps).toBe(1)
    expect(done.state).toEqual({ ask: 'ship?', ok: true, shipped: true })
    expect(calls).toHaveLength(2)
    expect(calls[1]!.state).toEqual({ ask: 'ship?', ok: true })
    expect(calls[1]!.ctx.seq).toBe(2)
  })

  it('writes a yielded checkpoint with phase mid_step and no control keys', async () => {
    const store = new MemStore()
    const r = await approval([]).run({}, { store, runId: 'r1' })
    const cp = await readCheckpoint(store, 'ship', 'r1')
    expect(cp).toMatchObject({
      status: 'yielded',
      yield_phase: 'mid_step',
      last_step: 'approve',
      seq: 1,
    })
    expect(cp.state).toEqual({ ask: 'ship?' })
    expect(r.state.__yield).toBeUndefined()
    expect(r.state.__yield_phase).toBeUndefined()
  })

  it('treats any __yield_phase other than after_step as mid_step', async () => {
    const store = new MemStore()
    const g = new Graph('g', 'a').addStep('a', () => ({ __yield: true, __yield_phase: 'sideways' }))
    await g.run({}, { store, runId: 'r1' })
    expect((await readCheckpoint(store, 'g', 'r1')).yield_phase).toBe('mid_step')
  })

  it('stops the run at the yielding step', async () => {
    const ran: string[] = []
    const g = new Graph('g', 'a')
      .addStep('a', () => ({ __yield: true, a: 1 }), always('b'))
      .addStep('b', () => (ran.push('b'), {}))
    const r = await g.run({})
    expect(r.stopReason).toBe('yielded')
    expect(r.state).toEqual({ a: 1 })
    expect(ran).toEqual([])
  })
})

describe('resume of an after_step yield', () => {
  function asker(log: string[]) {
    return new Graph('ask', 'ask')
      .addStep(
        'ask',
        () => (log.push('ask'), { __yield: true, __yield_phase: 'after_step', q: 'go?' }),
        branch('answer', { yes: 'go', no: 'stop' }, 'stop'),
      )
      .addStep('go', (_s, ctx) => (log.push(`go:${String(ctx.resumeInput)}`), { went: true }))
      .addStep('stop', () => (log.push('stop'), { went: false }))
  }

  it('writes phase after_step and, on resume, routes on the merged state without re-running the step', async () => {
    const store = new MemStore()
    const log: string[] = []
    const g = asker(log)
    const r = await g.run({}, { store, runId: 'r1' })
    expect((await readCheckpoint(store, 'ask', 'r1')).yield_phase).toBe('after_step')
    const done = await g.resume(r.runId, { answer: 'yes' }, { store })
    expect(done.stopReason).toBe('completed')
    expect(done.steps).toBe(1)
    expect(done.lastStep).toBe('go')
    expect(done.state).toEqual({ q: 'go?', answer: 'yes', went: true })
    expect(log).toEqual(['ask', 'go:undefined'])
  })

  it('completes with steps 0 when the yielding step has no router', async () => {
    const store = new MemStore()
    let calls = 0
    const g = new Graph('g', 'a').addStep(
      'a',
      () => (calls++, { __yield: true, __yield_phase: 'after_step' }),
    )
    const r = await g.run({}, { store })
    const done = await g.resume(r.runId, { extra: 1 }, { store })
    expect(done.stopReason).toBe('completed')
    expect(done.steps).toBe(0)
    expect(done.state).toEqual({ extra: 1 })
    expect(calls).toBe(1)
  })
})

describe('resume input', () => {
  it('is merged with the graph config', async () => {
    const store = new MemStore()
    const g = new Graph('chat', 'talk', { merge: defaultMergeConfig() }).addStep(
      'talk',
      (s) =>
        (s.messages as string[]).length < 3 ? { __yield: true, messages: ['bot'] } : { done: true },
      end(),
    )
    const r = await g.run({ messages: ['hi'] }, { store })
    const done = await g.resume(r.runId, { messages: ['user'] }, { store })
    expect(done.state).toEqual({ messages: ['hi', 'bot', 'user'], done: true })
  })

  it('has its control keys removed', async () => {
    const store = new MemStore()
    const g = approval([])
    const r = await g.run({}, { store })
    const done = await g.resume(
      r.runId,
      { __yield: true, __yield_phase: 'after_step', ok: 1 },
      { store },
    )
    expect(done.stopReason).toBe('completed')
    expect(done.state).toEqual({ ask: 'ship?', ok: 1, shipped: 1 })
  })

  it('is given as ctx.resumeInput to the re-run step only', async () => {
    const store = new MemStore()
    const seen: Array<[string, unknown]> = []
    const g = new Graph('g', 'a')
      .addStep(
        'a',
        (s, ctx) => (
          seen.push(['a', ctx.resumeInput]),
          s.ok === undefined ? { __yield: true } : {}
        ),
        always('b'),
      )
      .addStep('b', (_s, ctx) => (seen.push(['b', ctx.resumeInput]), {}))
    const r = await g.run({}, { store })
    await g.resume(r.runId, { ok: true }, { store })
    expect(seen).toEqual([
      ['a', undefined],
      ['a', { ok: true }],
      ['b', undefined],
    ])
  })

  it('continues seq from the checkpoint', async () => {
    const store = new MemStore()
    const seqs: number[] = []
    const g = new Graph('g', 'a')
      .addStep('a', (_s, ctx) => (seqs.push(ctx.seq), {}), always('b'))
      .addStep('b', (s, ctx) => (seqs.push(ctx.seq), s.ok ? {} : { __yield: true }), always('c'))
      .addStep('c', (_s, ctx) => (seqs.push(ctx.seq), {}))
    const r = await g.run({}, { store })
    await g.resume(r.runId, { ok: true }, { store })
    expect(seqs).toEqual([1, 2, 3, 4])
  })

  it('rejects an unknown run with CheckpointNotFoundError', async () => {
    const err = await approval([])
      .resume('nobody', {}, { store: new MemStore() })
      .catch((e: unknown) => e)
    expect(err).toBeInstanceOf(CheckpointNotFoundError)
    expect((err as CheckpointNotFoundError).runId).toBe('nobody')
  })

  it('can yield again and be resumed again', async () => {
    const store = new MemStore()
    const g = new Graph('g', 'a', { merge: defaultMergeConfig() }).addStep('a', (s) =>
      (s.messages as string[] | undefined)?.length === 2 ? { done: true } : { __yield: true },
    )
    const r = await g.run({}, { store })
    const r2 = await g.resume(r.runId, { messages: ['x'] }, { store })
    expect(r2.stopReason).toBe('yielded')
    const r3 = await g.resume(r.runId, { messages: ['y'] }, { store })
    expect(r3.stopReason).toBe('completed')
    expect(r3.state).toEqual({ messages: ['x', 'y'], done: true })
  })
})
