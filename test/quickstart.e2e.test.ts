import { readFile } from 'node:fs/promises'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ROOT, startWatched, stopWatched, type Watched } from './support/child-processes.js'
import { expectJson, expectPage, expectProblem, isoTime } from './support/expect-http.js'
import { startRecordingServer, type RecordingServer } from './support/recording-server.js'
import {
  runEvents,
  startWeave,
  waitForRun,
  waitForStep,
  type WeaveProcesses,
} from './support/weave-processes.js'

const PAYMENTS_PORT = 4010
// The README's scopes for Alice (who starts the run) and Bob (who approves it).
const ALICE_SCOPES = 'graphs:read graphs:write runs:read runs:write'
const BOB_SCOPES = 'runs:read approvals:read approvals:decide'

/** The example's payments stand-in, or a recording server on a free port when 4010 is taken. */
interface Payments {
  url: string
  /** The idempotency keys of the refunds it received. */
  keys(): string[]
  close(): Promise<void>
}

/** Starts the stand-in of `npm run example:payments` and waits for it; undefined when it cannot. */
async function startStandIn(): Promise<Payments | undefined> {
  let standIn: Watched
  try {
    standIn = await startWatched(
      process.execPath,
      ['--import', 'tsx', 'examples/refund/payments-server.ts'],
      { ready: 'payments stand-in on', what: 'the payments stand-in', timeoutMs: 20_000 },
    )
  } catch {
    return undefined
  }
  return {
    url: `http://127.0.0.1:${PAYMENTS_PORT}`,
    keys: () => [...standIn.output().matchAll(/idempotency key ([^)]+)\)/g)].map((m) => m[1]!),
    close: () => stopWatched(standIn),
  }
}

async function startRecordingStandIn(): Promise<Payments> {
  const server: RecordingServer = await startRecordingServer()
  server.on('/refunds', { status: 201, body: { refundId: 'rf_e2e', request: null } })
  return {
    url: server.url,
    keys: () => server.requestsTo('/refunds').map((r) => r.idempotencyKey ?? ''),
    close: () => server.close(),
  }
}

describe('the README quick start, as data', () => {
  let weave: WeaveProcesses
  let payments: Payments
  let graphFile: { name: string; description: string; spec: any }

  beforeAll(async () => {
    graphFile = JSON.parse(await readFile(`${ROOT}examples/refund/graph.json`, 'utf8'))
    // Port 4010 is fixed in the example; when it is taken, a local stand-in replaces it and the
    // loaded spec is pointed at it.
    payments = (await startStandIn()) ?? (await startRecordingStandIn())
    if (!payments.url.endsWith(`:${PAYMENTS_PORT}`)) {
      graphFile.spec.steps.refund.url = `${payments.url}/refunds`
    }
    weave = await startWeave({
      env: {
        // As the README writes it: a path relative to the working directory (the repo root).
        WEAVE_HANDLERS: 'examples/refund/handlers.ts',
        WEAVE_HTTP_ALLOW: new URL(payments.url).host,
      },
    })
  })
  afterAll(async () => {
    await Promise.allSettled([weave?.stop(), payments?.close()])
  })

  it('registers the refund graph, stops for approval, and completes once Bob approves', async () => {
    const alice = await weave.token('acme', 'alice', ALICE_SCOPES)
    const bob = await weave.token('acme', 'bob', BOB_SCOPES)

    const registered = await weave.call('POST', '/v1/graphs', { token: alice, body: graphFile })
    expect(expectJson(registered, 201)).toEqual({
      name: 'refund',
      version: 1,
      digest: expect.stringMatching(/^[0-9a-f]{64}$/),
      createdAt: isoTime,
    })

    const started = await weave.call('POST', '/v1/runs', {
      token: alice,
      body: { graph: 'refund', input: { amount: 250, customer: 'ada' } },
    })
    const runId: string = expectJson(started, 202).id
    const waiting = await waitForStep(weave, alice, runId, 'review')
    expect(waiting).toMatchObject({ status: 'waiting', lastStep: 'review' })
    expect(waiting.pendingApprovals).toHaveLength(1)
    expect(waiting.state).toMatchObject({ amount: 250, customer: 'ada', risk: 'high' })

    const pending = expectPage(
      await weave.call('GET', `/v1/approvals?status=pending&runId=${runId}`, { token: bob }),
    )
    expect(pending).toHaveLength(1)
    const approval = pending[0]
    expect(approval).toMatchObject({
      id: waiting.pendingApprovals[0],
      runId,
      step: 'review',
      status: 'pending',
      title: 'Refund 250 to ada?',
      required: 1,
      separationOfDuties: true,
      expiresAt: isoTime,
    })

    // Alice may not approve: her README token lacks the scope, and with it she is the starter.
    const decision = { decision: 'approve', comment: 'customer is in good standing' }
    const path = `/v1/approvals/${approval.id}/decision`
    expectProblem(await weave.call('POST', path, { token: alice, body: decision }), 403)
    const aliceDecider = await weave.token('acme', 'alice', `${ALICE_SCOPES} approvals:decide`)
    expectProblem(await weave.call('POST', path, { token: aliceDecider, body: decision }), 403)

    const decided = await weave.call('POST', path, { token: bob, body: decision })
    expect(expectJson(decided, 200)).toMatchObject({
      status: 'approved',
      decisions: [{ by: 'bob', decision: 'approve', comment: 'customer is in good standing' }],
    })

    const done = await waitForRun(weave, alice, runId, ['completed'])
    expect(done.state).toMatchObject({
      amount: 250,
      customer: 'ada',
      review: { status: 'approved' },
      refundResult: { status: 201, body: { refundId: expect.any(String) } },
      notified: { customer: 'ada', message: 'Your refund is on its way.' },
    })
    if (payments.url.endsWith(`:${PAYMENTS_PORT}`)) {
      expect(done.state.refundResult.body.request).toEqual({ customer: 'ada', amount: 250 })
    }
    const refundKeys = payments.keys().filter((key) => key.startsWith(`${runId}:`))
    expect(refundKeys).toEqual([expect.stringMatching(new RegExp(`^${runId}:refund:\\d+$`))])

    const types = (await runEvents(weave, alice, runId)).map((e) => e.type)
    expect(types.slice(0, 2)).toEqual(['run.queued', 'run.started'])
    expect(types).toContain('approval.requested')
    expect(types).toContain('approval.decided')
    expect(types.at(-1)).toBe('run.completed')
  })

  it('refunds a small amount without asking anyone', async () => {
    const alice = await weave.token('acme-small', 'alice', ALICE_SCOPES)
    expectJson(await weave.call('POST', '/v1/graphs', { token: alice, body: graphFile }), 201)
    const started = await weave.call('POST', '/v1/runs', {
      token: alice,
      body: { graph: 'refund', input: { amount: 40, customer: 'grace' } },
    })
    const done = await waitForRun(weave, alice, expectJson(started, 202).id, ['completed'])
    expect(done.state).toMatchObject({
      risk: 'low',
      refundResult: { status: 201 },
      notified: { customer: 'grace', message: 'Your refund is on its way.' },
    })
    expect(done.state).not.toHaveProperty('review')
    const bad = await weave.call('POST', '/v1/runs', {
      token: alice,
      body: { graph: 'refund', input: { amount: 'lots' } },
    })
    expect(expectProblem(bad, 400).errors?.map((e) => e.path)).toEqual(
      expect.arrayContaining(['/body/input/amount']),
    )
  })
})
