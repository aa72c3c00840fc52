import { describe, expect, it } from 'vitest'
import {
  CheckpointNotFoundError,
  CorruptCheckpointError,
  Graph,
  MemStore,
  UnsupportedCheckpointSchemaError,
  always,
  end,
} from '@weave/kernel'
import type { StepContext } from '@weave/kernel'
import { envelope, historyKey, writeRaw } from './helpers.js'

/** a → b → END; records which steps ran, their seq and resumeInput. */
function graph(log: Array<[string, number, unknown]>) {
  return new Graph('g', 'a', { checkpointHistory: -1 })
    .addStep(
      'a',
      (_s, ctx: StepContext) => (log.push(['a', ctx.seq, ctx.resumeInput]), { a: 1 }),
      always('b'),
    )
    .addStep(
      'b',
      (_s, ctx: StepContext) => (log.push(['b', ctx.seq, ctx.resumeInput]), { b: 1 }),
      end(),
    )
}

async function resumeFrom(value: unknown) {
  const store = new MemStore()
  await writeRaw(store, 'g', 'r1', value)
  const log: Array<[string, number, unknown]> = []
  const result = await graph(log)
    .resume('r1', { input: 1 }, { store })
    .catch((e: unknown) => e)
  return { result, log }
}

async function rejection(value: unknown): Promise<unknown> {
  const { result } = await resumeFrom(value)
  expect(result).toBeInstanceOf(Error)
  return result
}

const v1 = (over: Record<string, unknown> = {}) =>
  envelope({ run_id: 'r1', graph: 'g', last_step: 'a', ...over })

describe('reading a checkpoint, in order', () => {
  it('missing → CheckpointNotFoundError', async () => {
    const err = await graph([])
      .resume('r1', {}, { store: new MemStore() })
      .catch((e: unknown) => e)
    expect(err).toBeInstanceOf(CheckpointNotFoundError)
    expect((err as CheckpointNotFoundError).runId).toBe('r1')
  })

  it.each([
    ['not JSON', 'not json {'],
    ['the empty string', ''],
    ['a JSON array', '[1]'],
    ['a JSON string', '"text"'],
    ['JSON null', 'null'],
    ['a JSON number', '7'],
  ])('%s → CorruptCheckpointError naming the run', async (_name, raw) => {
    const err = await rejection(raw)
    expect(err).toBeInstanceOf(CorruptCheckpointError)
    expect((err as CorruptCheckpointError).runId).toBe('r1')
  })

  it('schema_version above 1 → UnsupportedCheckpointSchemaError naming both versions', async () => {
    const err = await rejection(v1({ schema_version: 2 }))
    expect(err).toBeInstanceOf(UnsupportedCheckpointSchemaError)
    const e = err as UnsupportedCheckpointSchemaError
    expect(e.found).toBe(2)
    expect(e.supported).toBe(1)
    expect(e.message).toContain('2')
    expect(e.message).toContain('1')
  })

  it('checks a too-new schema before any other field', async () => {
    for (const value of [{ schema_version: 3 }, { schema_version: 99, state: 5, seq: 'x' }]) {
      const err = await rejection(value)
      expect(err).toBeInstanceOf(UnsupportedCheckpointSchemaError)
      expect((err as UnsupportedCheckpointSchemaError).found).toBe(value.schema_version)
    }
  })

  it('compares schema_version > 1 first, so a fraction above 1 is too new', async () => {
    const err = await rejection(v1({ schema_version: 1.5 }))
    expect(err).toBeInstanceOf(UnsupportedCheckpointSchemaError)
    expect((err as UnsupportedCheckpointSchemaError).found).toBe(1.5)
  })

  it.each([
    ['a string', '1'],
    ['a fraction below 1', 0.5],
    ['a negative fraction', -0.5],
    ['null', null],
    ['a boolean', true],
  ])('a schema_version that is %s → CorruptCheckpointError', async (_name, version) => {
    expect(await rejection(v1({ schema_version: version }))).toBeInstanceOf(CorruptCheckpointError)
  })

  it.each(['run_id', 'graph', 'seq', 'last_step', 'status', 'state', 'saved_at'])(
    'version 1 without %s → CorruptCheckpointError',
    async (field) => {
      const value = v1()
      delete value[field]
      expect(await rejection(value)).toBeInstanceOf(CorruptCheckpointError)
    },
  )

  it.each([
    ['run_id', 7],
    ['graph', 7],
    ['seq', '1'],
    ['last_step', 7],
    ['status', 'bogus'],
    ['status', 1],
    ['state', [1]],
    ['state', 'x'],
    ['state', null],
    ['saved_at', 0],
    ['yield_phase', 7],
  ])('version 1 with %s = %j → CorruptCheckpointError', async (field, value) => {
    const over =
      field === 'yield_phase' ? { status: 'yielded', [field]: value } : { [field]: value }
    expect(await rejection(v1(over))).toBeInstanceOf(CorruptCheckpointError)
  })

  it('ignores meta on read', async () => {
    const { result, log } = await resumeFrom(v1({ meta: 'anything at all', state: { a: 1 } }))
    expect(result).toMatchObject({ stopReason: 'completed', steps: 1 })
    expect(log.map(([s]) => s)).toEqual(['b'])
  })

  it('resumes a valid version-1 step_done checkpoint from its router', async () => {
    const { result, log } = await resumeFrom(v1({ seq: 4, state: { a: 1 } }))
    expect(result).toMatchObject({
      stopReason: 'completed',
      steps: 1,
      state: { a: 1, input: 1, b: 1 },
    })
    expect(log).toEqual([['b', 5, undefined]])
  })
})

describe('legacy checkpoints (schema_version absent or 0)', () => {
  const legacy = (over: Record<string, unknown>) => ({ last_step: 'a', state: { a: 0 }, ...over })

  it('needs last_step and state', async () => {
    expect(await rejection({ state: {} })).toBeInstanceOf(CorruptCheckpointError)
    expect(await rejection({ last_step: 'a' })).toBeInstanceOf(CorruptCheckpointError)
    expect(await rejection({ schema_version: 0, last_step: 'a' })).toBeInstanceOf(
      CorruptCheckpointError,
    )
  })

  it('without yield_phase or __failed_step resumes as yielded mid_step: re-runs last_step at seq 1', async () => {
    for (const over of [{}, { schema_version: 0 }]) {
      const { result, log } = await resumeFrom(legacy(over))
      expect(result).toMatchObject({ stopReason: 'completed', steps: 2 })
      expect(log).toEqual([
        ['a', 1, { input: 1 }],
        ['b', 2, undefined],
      ])
    }
  })

  it('with yield_phase mid_step re-runs last_step', async () => {
    const { log } = await resumeFrom(legacy({ yield_phase: 'mid_step' }))
    expect(log.map(([s]) => s)).toEqual(['a', 'b'])
  })

  it('with yield_phase after_step routes on without re-running last_step', async () => {
    const { result, log } = await resumeFrom(legacy({ yield_phase: 'after_step' }))
    expect(result).toMatchObject({ stopReason: 'completed', steps: 1 })
    expect(log).toEqual([['b', 1, undefined]])
  })

  it('with __failed_step in state is failed: the kernel keys go and last_step re-runs', async () => {
    const { result, log } = await resumeFrom(
      legacy({ state: { a: 0, __error: 'old', __failed_step: 'a' } }),
    )
    expect(result).toMatchObject({ stopReason: 'completed' })
    expect((result as { state: object }).state).toEqual({ a: 1, input: 1, b: 1 })
    expect(log.map(([s]) => s)).toEqual(['a', 'b'])
  })

  it('lets yield_phase win over __failed_step', async () => {
    const { log } = await resumeFrom(
      legacy({ yield_phase: 'after_step', state: { __error: 'x', __failed_step: 'a' } }),
    )
    expect(log.map(([s]) => s)).toEqual(['b'])
  })
})

describe('reads for resumeAt and history', () => {
  it('resumeAt of a missing entry → CheckpointNotFoundError with runId and seq', async () => {
    const store = new MemStore()
    await writeRaw(store, 'g', 'r1', v1())
    const err = await graph([])
      .resumeAt('r1', 3, {}, { store })
      .catch((e: unknown) => e)
    expect(err).toBeInstanceOf(CheckpointNotFoundError)
    expect((err as CheckpointNotFoundError).runId).toBe('r1')
    expect((err as CheckpointNotFoundError).seq).toBe(3)
  })

  it('resumeAt of a corrupt entry → CorruptCheckpointError', async () => {
    const store = new MemStore()
    await writeRaw(store, 'g', historyKey('r1', 1), 'garbage')
    await expect(graph([]).resumeAt('r1', 1, {}, { store })).rejects.toBeInstanceOf(
      CorruptCheckpointError,
    )
  })

  it('resumeAt of a too-new entry → UnsupportedCheckpointSchemaError', async () => {
    const store = new MemStore()
    await writeRaw(store, 'g', historyKey('r1', 1), { schema_version: 2 })
    await expect(graph([]).resumeAt('r1', 1, {}, { store })).rejects.toBeInstanceOf(
      UnsupportedCheckpointSchemaError,
    )
  })

  it('resumeAt treats a plain legacy entry as step_done and continues at the key seq + 1', async () => {
    const store = new MemStore()
    await writeRaw(store, 'g', historyKey('r1', 7), { last_step: 'a', state: { a: 0 } })
    const log: Array<[string, number, unknown]> = []
    const r = await graph(log).resumeAt('r1', 7, {}, { store, newRunId: 'fork' })
    expect(r).toMatchObject({ stopReason: 'completed', steps: 1, runId: 'fork' })
    expect(log).toEqual([['b', 8, undefined]])
  })

  it('history reads legacy entries with the seq of their key', async () => {
    const store = new MemStore()
    await writeRaw(store, 'g', historyKey('r1', 1), { last_step: 'a', state: {} })
    await writeRaw(store, 'g', historyKey('r1', 2), {
      last_step: 'b',
      state: {},
      yield_phase: 'after_step',
    })
    await writeRaw(store, 'g', historyKey('r1', 3), {
      schema_version: 0,
      last_step: 'b',
      state: { __failed_step: 'b', __error: 'x' },
    })
    const h = await graph([]).history('r1', { store })
    expect(h.map((c) => [c.seq, c.lastStep, c.status, c.yieldPhase])).toEqual([
      [1, 'a', 'step_done', undefined],
      [2, 'b', 'yielded', 'after_step'],
      [3, 'b', 'failed', undefined],
    ])
  })
})
