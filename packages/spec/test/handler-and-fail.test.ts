import { describe, expect, it } from 'vitest'
import {
  createHandlerRegistry,
  defineHandler,
  HandlerConflictError,
  HandlerModuleError,
  isHandlerDefinition,
  loadHandlerModules,
} from '@weave/spec'
import { runOneStep } from './support/one-step.js'

const fixtures = new URL('./fixtures/', import.meta.url).pathname

describe('handler step', () => {
  it('calls the handler with the visible state and its context', async () => {
    const seen: unknown[] = []
    const handlers = createHandlerRegistry([
      defineHandler('crm.notify', (state, ctx) => {
        seen.push({ state, config: ctx.config, step: ctx.step, seq: ctx.seq, runId: ctx.runId })
        return { notified: state.customer }
      }),
    ])
    const r = await runOneStep(
      { kind: 'handler', name: 'crm.notify', config: { channel: 'email' } },
      { handlers },
      { customer: 'Ada', __budget_remaining: 9 },
    )
    expect(r.state.notified).toBe('Ada')
    expect(seen).toEqual([
      {
        state: { customer: 'Ada' },
        config: { channel: 'email' },
        step: 'step',
        seq: 1,
        runId: r.runId,
      },
    ])
  })

  it('fails the step clearly when the handler is not registered', async () => {
    const r = await runOneStep({ kind: 'handler', name: 'crm.missing' })
    expect(r.error).toMatchObject({ name: 'HandlerNotFoundError', code: 'handler-not-found' })
    expect(r.state.__error).toBe('step "step": no handler "crm.missing" is registered')
  })
})

describe('handler registry', () => {
  const fn = () => ({})

  it('refuses bad names and a second function under one name', () => {
    expect(() => defineHandler('no spaces', fn)).toThrow(TypeError)
    const def = defineHandler('a.b', fn)
    const registry = createHandlerRegistry([def, def])
    expect(registry.names()).toEqual(['a.b'])
    expect(() => registry.register(defineHandler('a.b', () => ({})))).toThrow(HandlerConflictError)
    expect(isHandlerDefinition(def)).toBe(true)
    expect(isHandlerDefinition({ name: 'a.b', fn })).toBe(false)
  })

  it('loads every handler a module exports, named, default or in an array', async () => {
    const registry = createHandlerRegistry()
    const names = await loadHandlerModules(registry, ['./handlers-module.ts'], {
      baseDir: fixtures,
    })
    expect(names).toEqual(['billing.charge', 'crm.notify', 'crm.tag'])
    expect(await registry.get('crm.tag')!({ x: 1 }, {} as never)).toEqual({ tagged: 1 })
  })

  it('refuses a module without handlers and one that cannot be imported', async () => {
    const registry = createHandlerRegistry()
    await expect(
      loadHandlerModules(registry, ['./example-spec.ts'], { baseDir: fixtures }),
    ).rejects.toThrow(HandlerModuleError)
    await expect(
      loadHandlerModules(registry, ['./does-not-exist.ts'], { baseDir: fixtures }),
    ).rejects.toThrow(/cannot import/)
  })
})

describe('fail step', () => {
  it('fails the run with the rendered message', async () => {
    const r = await runOneStep(
      { kind: 'fail', message: 'order {{ id }} cannot be refunded' },
      {},
      { id: 42 },
    )
    expect(r.stopReason).toBe('error')
    expect(r.error).toMatchObject({ name: 'FailStepError', code: 'fail-step' })
    expect(r.state.__error).toBe('order 42 cannot be refunded')
  })
})
