import { describe, expectTypeOf, it } from 'vitest'
import { createWeaveClient, type Approval, type Run, type RunEvent } from '@weave/client'

// What the generated types let through and what they refuse. `npm run typecheck` compiles this
// file: each @ts-expect-error fails the check when the line below it starts compiling, so a
// type that grew too loose (a wrong body accepted) is caught there; the calls never run.

const weave = createWeaveClient({ baseUrl: 'http://127.0.0.1:3000', token: 'unused' })

function neverCalled() {
  // @ts-expect-error a run's graph is a name, not a number
  void weave.api.POST('/v1/runs', { body: { graph: 42, input: {} } })
  // @ts-expect-error the body of a start needs the graph
  void weave.api.POST('/v1/runs', { body: { input: { amount: 1 } } })
  void weave.api.POST('/v1/approvals/{id}/decision', {
    params: { path: { id: 'a' } },
    // @ts-expect-error no such field in a decision
    body: { decision: 'approve', approved: true },
  })
  // @ts-expect-error a decision is approve or reject
  void weave.approvals.decide({ id: 'a', materialHash: 'h' }, 'maybe')
  // @ts-expect-error deciding needs the material hash that was shown
  void weave.approvals.decide({ id: 'a' }, 'approve')
  // @ts-expect-error a fork's seq is a number
  void weave.runs.fork('r', { seq: 'first' })
  // @ts-expect-error a step kind the spec does not know
  void weave.graphs.register('g', { entry: 'a', steps: { a: { kind: 'teleport' } } })
  // @ts-expect-error a path the API does not serve
  void weave.api.GET('/v1/run/{id}', { params: { path: { id: 'r' } } })
}

describe('the types generated from the OpenAPI document', () => {
  it('types what the calls resolve with', () => {
    expectTypeOf(neverCalled).toBeFunction()
    expectTypeOf<ReturnType<typeof weave.runs.start>>().resolves.toEqualTypeOf<Run>()
    expectTypeOf<Run['status']>().toEqualTypeOf<
      'queued' | 'running' | 'waiting' | 'completed' | 'failed' | 'cancelled'
    >()
    expectTypeOf<Approval['materialHash']>().toBeString()
    expectTypeOf<Extract<RunEvent, { type: 'run.queued' }>['data']>().toHaveProperty('graph')
    expectTypeOf<Parameters<typeof weave.approvals.decide>[1]>().toEqualTypeOf<
      'approve' | 'reject'
    >()
  })
})
