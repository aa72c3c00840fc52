import { describe, expect, it } from 'vitest'
import { MemStore, type State } from '@weave/kernel'
import {
  compileGraph,
  GraphSpec,
  validateRunInput,
  validateStepInput,
  type CompileDeps,
} from '@weave/spec'
import { createYieldHost } from './support/yield-host.js'

async function setup(steps: Record<string, unknown>, deps: CompileDeps = {}) {
  const host = createYieldHost()
  const spec = GraphSpec.parse({ entry: Object.keys(steps)[0], steps })
  const { graph } = await compileGraph('g', spec, { ...deps, approvals: host.approvals })
  const store = new MemStore()
  return {
    host,
    suspensions: host.reasons,
    spec,
    run: async (input: State = {}) => host.record(await graph.run(input, { store })),
    resume: async (runId: string, input: State = {}) =>
      host.record(await graph.resume(runId, input, { store })),
  }
}

describe('wait step', () => {
  const start = Date.parse('2030-01-01T00:00:00Z')
  let now = start
  const clock = { now: () => new Date(now) }

  it('yields until the duration has passed, surviving an early resume', async () => {
    now = start
    const g = await setup(
      {
        pause: { kind: 'wait', duration: 'PT30M', next: 'after' },
        after: { kind: 'set', values: { done: 'true' } },
      },
      clock,
    )
    const r = await g.run()
    const until = '2030-01-01T00:30:00.000Z'
    expect(r.stopReason).toBe('yielded')
    expect(r.state.pause).toEqual({ until })
    expect(g.suspensions).toEqual([{ kind: 'wait', runId: r.runId, step: 'pause', seq: 1, until }])
    now = start + 10 * 60_000
    const early = await g.resume(r.runId)
    expect(early.stopReason).toBe('yielded')
    expect(g.suspensions.at(-1)).toMatchObject({ until, seq: 2 })
    now = start + 30 * 60_000
    const done = await g.resume(r.runId)
    expect(done.stopReason).toBe('completed')
    expect(done.state.done).toBe(true)
  })

  it('waits until the time an expression gives, and not at all when it is past', async () => {
    now = start
    const g = await setup({ w: { kind: 'wait', until: 'deadline', saveAs: 'timer' } }, clock)
    const later = await g.run({ deadline: '2030-01-02T00:00:00Z' })
    expect(later.state.timer).toEqual({ until: '2030-01-02T00:00:00.000Z' })
    expect(later.stopReason).toBe('yielded')
    const past = await g.run({ deadline: '2029-12-31T00:00:00Z' })
    expect(past.stopReason).toBe('completed')
    expect(g.suspensions).toHaveLength(1)
    const bad = await g.run({ deadline: 'soon' })
    expect(bad.state.__error).toMatch(/until must be an ISO 8601 time or epoch milliseconds/)
  })
})

describe('approval step', () => {
  it('reports details, approvers and saveAs, and continues on expiry by default', async () => {
    const g = await setup({
      ask: {
        kind: 'approval',
        title: 'Deploy {{ version }}?',
        details: '{ "version": version, "env": "prod" }',
        approvers: { scopes: ['deploy'] },
        required: 2,
        saveAs: 'decision',
        next: { when: [{ if: "decision.status = 'approved'", then: 'ship' }], else: null },
      },
      ship: { kind: 'set', values: { shipped: 'true' } },
    })
    const r = await g.run({ version: '1.2' })
    expect(g.suspensions[0]).toMatchObject({
      kind: 'approval',
      title: 'Deploy 1.2?',
      details: { version: '1.2', env: 'prod' },
      approvers: { scopes: ['deploy'] },
      required: 2,
      separationOfDuties: false,
      timeoutMs: null,
      saveAs: 'decision',
    })
    g.host.settle(r.runId, 'ask', { status: 'expired', approvalId: 'a-1', decisions: [] })
    const expired = await g.resume(r.runId)
    expect(expired.stopReason).toBe('completed')
    expect(expired.state.shipped).toBeUndefined()
  })

  it('fails the run on expiry when onTimeout is "fail"', async () => {
    const g = await setup({
      ask: { kind: 'approval', title: 'ok?', timeout: 'PT1H', onTimeout: 'fail' },
    })
    const r = await g.run()
    expect(g.suspensions[0]).toMatchObject({ timeoutMs: 3_600_000, onTimeout: 'fail' })
    g.host.settle(r.runId, 'ask', { status: 'expired', approvalId: 'a-1', decisions: [] })
    const failed = await g.resume(r.runId)
    expect(failed.stopReason).toBe('error')
    expect(failed.error).toMatchObject({ name: 'ApprovalExpiredError', code: 'approval-expired' })
  })
})

describe('input step', () => {
  const schema = {
    type: 'object',
    required: ['email'],
    properties: { email: { type: 'string', format: 'email' } },
  }

  it('yields with its prompt and schema, then saves the input under saveAs', async () => {
    const g = await setup({
      form: { kind: 'input', prompt: 'Email for {{ name }}?', schema, saveAs: 'contact' },
    })
    const r = await g.run({ name: 'Ada' })
    expect(g.suspensions).toEqual([
      {
        kind: 'input',
        runId: r.runId,
        step: 'form',
        seq: 1,
        prompt: 'Email for Ada?',
        schema,
        saveAs: 'contact',
      },
    ])
    const done = await g.resume(r.runId, { email: 'ada@example.com' })
    expect(done.stopReason).toBe('completed')
    expect(done.state.contact).toEqual({ email: 'ada@example.com' })
  })

  it('suspends again on input that does not match the schema', async () => {
    const g = await setup({ form: { kind: 'input', schema } })
    const r = await g.run()
    const again = await g.resume(r.runId, { email: 'not an email' })
    expect(again.stopReason).toBe('yielded')
    expect(g.suspensions).toHaveLength(2)
  })

  it('continues without saveAs, the kernel having merged the input', async () => {
    const g = await setup({ form: { kind: 'input' } })
    const r = await g.run()
    const done = await g.resume(r.runId, { answer: 42 })
    expect(done.state.answer).toBe(42)
    expect(g.suspensions[0]).toMatchObject({ prompt: null, schema: null, saveAs: null })
  })

  it('lets the API check resume input and run input before enqueuing', async () => {
    const spec = GraphSpec.parse({
      entry: 'form',
      input: { type: 'object', required: ['name'] },
      steps: { form: { kind: 'input', schema } },
    })
    expect(validateStepInput(spec, 'form', { email: 'ada@example.com' })).toEqual([])
    expect(validateStepInput(spec, 'form', { email: 'nope', extra: 1 })).toEqual([
      { path: '/email', message: 'must match format "email"' },
    ])
    expect(validateStepInput(spec, 'form', {})).toEqual([{ path: '/email', message: 'required' }])
    expect(validateStepInput(spec, 'ghost', {})).toEqual([
      { path: '', message: 'step "ghost" is not an input step' },
    ])
    expect(validateRunInput(spec, {})).toEqual([{ path: '/name', message: 'required' }])
    expect(validateRunInput(spec, { name: 'x' })).toEqual([])
  })
})
