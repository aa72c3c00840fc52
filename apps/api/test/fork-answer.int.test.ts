import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { RunView } from '../src/schemas/runs.js'
import { randomTenant } from './support/database.js'
import { executeWithKernel, moveRun, setCheckpointSeq } from './support/fixtures.js'
import { createHarness, expectJson, type Harness } from './support/harness.js'

let h: Harness
const tenant = randomTenant()

const TWO_STEPS = {
  entry: 'double',
  steps: {
    double: { kind: 'set', values: { doubled: 'n * 2' }, next: 'label' },
    label: { kind: 'set', values: { label: "'n=' & $string(n)" } },
  },
}

beforeAll(async () => {
  h = await createHarness('api_fork_answer')
})
afterAll(async () => h?.close())

describe('POST /v1/runs/{id}/fork', () => {
  it('answers with the run as committed, queued, even when a worker claims it at once', async () => {
    const token = await h.token(tenant, 'alice')
    const graphs = { method: 'POST', url: '/v1/graphs', token } as const
    expectJson(await h.call({ ...graphs, body: { name: 'calc', spec: TWO_STEPS } }), 201)
    const source = expectJson(
      await h.call({
        method: 'POST',
        url: '/v1/runs',
        token,
        body: { graph: 'calc', input: { n: 2 } },
      }),
      202,
      RunView,
    )
    await moveRun(h.database, tenant, source.id, 'running')
    const run = { id: source.id, graph: 'calc', version: source.version }
    await executeWithKernel(h.database, h.registry, tenant, run, { n: 2 })
    await setCheckpointSeq(h.database, tenant, source.id, 2)

    // A worker as quick as can be: it claims the forked run the moment its job is handed over.
    const enqueue = h.queues.enqueue.bind(h.queues)
    h.queues.enqueue = async (kind, payload, options) => {
      if (kind === 'run' && 'runId' in payload) {
        await moveRun(h.database, tenant, payload.runId, 'running')
      }
      return enqueue(kind, payload, options)
    }
    try {
      const res = await h.call({
        method: 'POST',
        url: `/v1/runs/${source.id}/fork`,
        token,
        body: { seq: 1, input: { n: 10 } },
      })
      const fork = expectJson(res, 202, RunView)
      expect(fork).toMatchObject({ status: 'queued', forkedFrom: source.id, forkedSeq: 1 })
      // The claim did happen: a later read shows it.
      const later = expectJson(
        await h.call({ method: 'GET', url: `/v1/runs/${fork.id}`, token }),
        200,
        RunView,
      )
      expect(later.status).toBe('running')
    } finally {
      h.queues.enqueue = enqueue
    }
  })
})
