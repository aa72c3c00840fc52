import { execFile } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest'
import { expectJson, expectPage, isoTime, uuid } from './support/expect-http.js'
import {
  startWeave,
  waitForRun,
  waitForStep,
  type ApiResponse,
  type WeaveProcesses,
} from './support/weave-processes.js'
import { ROOT } from './support/child-processes.js'

const SCOPES = 'graphs:read graphs:write runs:read runs:write approvals:read approvals:decide'
const HASH = expect.stringMatching(/^[0-9a-f]{64}$/)

const GATE_SPEC = {
  entry: 'review',
  steps: {
    review: { kind: 'approval', title: 'Proceed?', next: 'after' },
    after: { kind: 'set', values: { done: 'true' } },
  },
}
const ASK_SPEC = {
  entry: 'ask',
  steps: {
    ask: { kind: 'input', saveAs: 'answer', next: 'after' },
    after: { kind: 'set', values: { done: 'true' } },
  },
}

/** Runs the `weave` command line and resolves to its exit status and output. */
function runCli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', join(ROOT, 'apps/cli/src/main.ts'), ...args],
      { cwd: ROOT },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0
        resolve({ code, stdout, stderr })
      },
    )
  })
}

describe('the audit log', () => {
  let weave: WeaveProcesses
  const tenant = `t-${randomBytes(4).toString('hex')}`
  let alice: string
  let bob: string
  let auditor: string

  beforeAll(async () => {
    // The scheduled anchor job makes its first pass when the worker starts; on a loaded machine
    // that pass can come after this file's first requests and anchor chains the assertions
    // expect unanchored. Here every anchor is asked for by a request.
    weave = await startWeave({ env: { WEAVE_AUDIT_ANCHOR_INTERVAL_MS: '0' } })
    alice = await weave.token(tenant, 'alice', SCOPES)
    bob = await weave.token(tenant, 'bob', SCOPES)
    auditor = await weave.token(tenant, 'auditor', 'audit:read')
  })
  afterAll(async () => {
    await weave?.stop()
  })

  /** Calls the API with a fresh `X-Request-Id`, checks it is echoed, and returns both. */
  async function tracked(
    method: string,
    path: string,
    token: string,
    body?: unknown,
  ): Promise<{ res: ApiResponse; requestId: string }> {
    const requestId = `e2e-${randomBytes(6).toString('hex')}`
    const res = await weave.call(method, path, {
      token,
      headers: { 'x-request-id': requestId },
      ...(body === undefined ? {} : { body }),
    })
    expect(res.headers.get('x-request-id')).toBe(requestId)
    return { res, requestId }
  }

  async function auditOf(action: string, targetId: string, token = auditor) {
    const query = new URLSearchParams({ action, targetId })
    return expectPage(await weave.call('GET', `/v1/audit?${query.toString()}`, { token }))
  }

  /** Asserts exactly one audit event for (action, target), by `actor` from request `requestId`. */
  async function expectOneEvent(
    action: string,
    target: { kind: string; id: string },
    actor: string,
    requestId: string,
  ) {
    const events = await auditOf(action, target.id)
    expect({ action, target, events }).toMatchObject({
      action,
      target,
      events: [expect.anything()],
    })
    expect(events[0]).toEqual({
      id: uuid,
      seq: expect.any(Number),
      at: isoTime,
      tenant,
      actor,
      action,
      target,
      requestId,
      ip: expect.any(String),
      details: expect.anything(),
      prevHash: HASH,
      hash: HASH,
    })
    return events[0]
  }

  it('writes one event per state-changing request, with the actor and the request id', async () => {
    const registered = await tracked('POST', '/v1/graphs', alice, { name: 'gate', spec: GATE_SPEC })
    expectJson(registered.res, 201)
    await expectOneEvent(
      'graph.registered',
      { kind: 'graph', id: 'gate' },
      'alice',
      registered.requestId,
    )
    // Registering the same spec again changes nothing and writes nothing.
    expectJson(
      (await tracked('POST', '/v1/graphs', alice, { name: 'gate', spec: GATE_SPEC })).res,
      200,
    )
    expect(await auditOf('graph.registered', 'gate')).toHaveLength(1)
    expectJson(
      (await tracked('POST', '/v1/graphs', alice, { name: 'ask', spec: ASK_SPEC })).res,
      201,
    )

    // run started, then approval decided
    const started = await tracked('POST', '/v1/runs', alice, { graph: 'gate' })
    const runId: string = expectJson(started.res, 202).id
    await expectOneEvent('run.started', { kind: 'run', id: runId }, 'alice', started.requestId)
    const waiting = await waitForStep(weave, alice, runId, 'review')
    const approvalId: string = waiting.pendingApprovals[0]
    const decided = await tracked('POST', `/v1/approvals/${approvalId}/decision`, bob, {
      decision: 'approve',
    })
    expectJson(decided.res, 200)
    await expectOneEvent(
      'approval.decided',
      { kind: 'approval', id: approvalId },
      'bob',
      decided.requestId,
    )
    await waitForRun(weave, alice, runId, ['completed'])

    // run resumed with input
    const askRun: string = expectJson(
      (await tracked('POST', '/v1/runs', alice, { graph: 'ask' })).res,
      202,
    ).id
    await waitForStep(weave, alice, askRun, 'ask')
    const resumed = await tracked('POST', `/v1/runs/${askRun}/resume`, bob, {
      input: { colour: 'red' },
    })
    expectJson(resumed.res, 202)
    await expectOneEvent('run.resumed', { kind: 'run', id: askRun }, 'bob', resumed.requestId)
    await waitForRun(weave, alice, askRun, ['completed'])

    // run cancelled
    const doomed: string = expectJson(
      (await tracked('POST', '/v1/runs', alice, { graph: 'gate' })).res,
      202,
    ).id
    await waitForStep(weave, alice, doomed, 'review')
    const cancelled = await tracked('POST', `/v1/runs/${doomed}/cancel`, bob)
    expectJson(cancelled.res, 202)
    await expectOneEvent('run.cancelled', { kind: 'run', id: doomed }, 'bob', cancelled.requestId)

    // run forked: the event names the new run
    const history = expectJson(
      await weave.call('GET', `/v1/runs/${runId}/history`, { token: alice }),
      200,
    )
    const decidedSeq: number = history.items.find(
      (c: { lastStep: string; status: string }) =>
        c.lastStep === 'review' && c.status === 'step_done',
    ).seq
    const forked = await tracked('POST', `/v1/runs/${runId}/fork`, bob, { seq: decidedSeq })
    const forkId: string = expectJson(forked.res, 202).id
    const forkEvent = await expectOneEvent(
      'run.forked',
      { kind: 'run', id: forkId },
      'bob',
      forked.requestId,
    )
    expect(forkEvent.details).toMatchObject({ forkedFrom: runId, forkedSeq: decidedSeq })
    await waitForRun(weave, alice, forkId, ['completed'])

    // graph archived
    const archived = await tracked('DELETE', '/v1/graphs/gate', alice)
    expectJson(archived.res, 200)
    await expectOneEvent(
      'graph.archived',
      { kind: 'graph', id: 'gate' },
      'alice',
      archived.requestId,
    )

    // Each target's whole history: exactly the events of the requests above.
    const byTarget = async (targetId: string) =>
      expectPage(await weave.call('GET', `/v1/audit?targetId=${targetId}`, { token: auditor })).map(
        (e) => e.action,
      )
    expect(await byTarget(runId)).toEqual(['run.started'])
    expect(await byTarget(askRun)).toEqual(['run.resumed', 'run.started'])
    expect(await byTarget(doomed)).toEqual(['run.cancelled', 'run.started'])
    expect(await byTarget(forkId)).toEqual(['run.forked'])
    expect(await byTarget(approvalId)).toEqual(['approval.decided'])
    expect(await byTarget('gate')).toEqual(['graph.archived', 'graph.registered'])

    const byActor = expectPage(
      await weave.call('GET', '/v1/audit?actor=bob&limit=200', { token: auditor }),
    )
    expect(byActor.map((e) => e.action).sort()).toEqual([
      'approval.decided',
      'run.cancelled',
      'run.forked',
      'run.resumed',
    ])

    const all = expectPage(await weave.call('GET', '/v1/audit?limit=200', { token: auditor }))
    expect(all).toHaveLength(10)
    const seqs = all.map((e) => e.seq as number)
    expect(seqs).toEqual([...seqs].sort((a, b) => b - a))
    expect(seqs.at(-1)).toBe(1)
    // Newest first, each event chained to the one before it.
    all.slice(0, -1).forEach((event, i) => expect(event.prevHash).toBe(all[i + 1]!.hash))

    const verify = await weave.call('GET', '/v1/audit/verify', { token: auditor })
    expect(expectJson(verify, 200)).toEqual({ ok: true, checked: 10, anchor: null })
  })

  it('refuses UPDATE, DELETE and TRUNCATE on audit_events, even to the owner', async () => {
    for (const sql of [
      "UPDATE audit_events SET actor = 'mallory'",
      'DELETE FROM audit_events',
      'TRUNCATE audit_events',
    ]) {
      await expect(weave.owner.query(sql), sql).rejects.toThrow(/append-only/)
    }
    const { rows } = await weave.owner.query<{ n: string }>(
      'SELECT count(*) AS n FROM audit_events WHERE tenant_id = $1',
      [tenant],
    )
    expect(Number(rows[0]!.n)).toBe(10)
  })

  it('names the first edited event once the trigger is bypassed', async () => {
    const other = `t-${randomBytes(4).toString('hex')}`
    const otherToken = await weave.token(other, 'carol', SCOPES)
    expectJson(
      await weave.call('POST', '/v1/graphs', {
        token: otherToken,
        body: { name: 'ask', spec: ASK_SPEC },
      }),
      201,
    )

    const [victim] = expectPage(
      await weave.call('GET', '/v1/audit?action=run.cancelled', { token: auditor }),
    )
    expect(victim).toBeDefined()

    const client = await weave.owner.connect()
    try {
      await client.query('BEGIN')
      await client.query('ALTER TABLE audit_events DISABLE TRIGGER USER')
      await client.query("UPDATE audit_events SET actor = 'mallory' WHERE id = $1", [victim.id])
      await client.query('ALTER TABLE audit_events ENABLE TRIGGER USER')
      await client.query('COMMIT')
    } catch (err) {
      await client.query('ROLLBACK')
      throw err
    } finally {
      client.release()
    }

    const verify = await weave.call('GET', '/v1/audit/verify', { token: auditor })
    expect(expectJson(verify, 200)).toEqual({
      ok: false,
      checked: victim.seq,
      anchor: null,
      problem: 'edited',
      firstBadSeq: victim.seq,
      firstBadId: victim.id,
    })
    // Another tenant's chain is its own and still intact.
    const otherAuditor = await weave.token(other, 'auditor', 'audit:read')
    const otherVerify = await weave.call('GET', '/v1/audit/verify', { token: otherAuditor })
    expect(expectJson(otherVerify, 200)).toEqual({ ok: true, checked: 1, anchor: null })
    // The guard is back.
    await expect(
      weave.owner.query("UPDATE audit_events SET actor = 'x' WHERE id = $1", [victim.id]),
    ).rejects.toThrow(/append-only/)
  })
  it('anchors the chain, and finds its newest events deleted online and offline with the key', async () => {
    const anchored = `t-${randomBytes(4).toString('hex')}`
    const writer = await weave.token(anchored, 'alice', SCOPES)
    const reader = await weave.token(anchored, 'auditor', 'audit:read audit:anchor')
    for (const name of ['first', 'second', 'third']) {
      const res = await weave.call('POST', '/v1/graphs', {
        token: writer,
        body: { name, spec: GATE_SPEC },
      })
      expect(res.status).toBe(201)
    }
    const anchor = expectJson(await weave.call('POST', '/v1/audit/anchors', { token: reader }), 201)
    expect(anchor).toMatchObject({ tenant: anchored, seq: 3, hash: HASH })
    const keys = expectJson(await weave.call('GET', '/v1/audit/keys', { token: reader }), 200)
    const publicKey = (keys.keys as Array<{ publicKey: string }>)[0]!.publicKey
    const dir = mkdtempSync(join(tmpdir(), 'weave-audit-'))
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }))
    const verifyExport = async () => {
      const res = await fetch(`${weave.baseUrl}/v1/audit/export`, {
        headers: { authorization: `Bearer ${reader}` },
      })
      expect(res.status).toBe(200)
      const file = join(dir, 'export.ndjson')
      writeFileSync(file, await res.text())
      return runCli(['audit', 'verify-export', file, '--public-key', publicKey])
    }
    expect(await verifyExport()).toMatchObject({
      code: 0,
      stdout: expect.stringMatching(/^ok: 3 events/),
    })

    const client = await weave.owner.connect()
    try {
      await client.query('BEGIN')
      await client.query('ALTER TABLE audit_events DISABLE TRIGGER USER')
      await client.query('DELETE FROM audit_events WHERE tenant_id = $1 AND seq = 3', [anchored])
      await client.query('ALTER TABLE audit_events ENABLE TRIGGER USER')
      await client.query('COMMIT')
    } catch (err) {
      await client.query('ROLLBACK')
      throw err
    } finally {
      client.release()
    }
    const verify = expectJson(await weave.call('GET', '/v1/audit/verify', { token: reader }), 200)
    expect(verify).toMatchObject({ ok: false, checked: 2, problem: 'truncated', firstBadSeq: 3 })
    expect(await verifyExport()).toMatchObject({
      code: 1,
      stdout: expect.stringMatching(/^broken: truncated at seq 3/),
    })
  })
})
