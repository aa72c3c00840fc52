import { once } from 'node:events'
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { Webhook } from 'standardwebhooks'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { expectJson } from './support/expect-http.js'
import { startWeave, waitUntil, type WeaveProcesses } from './support/weave-processes.js'

const SCOPES = 'graphs:write runs:write runs:read webhooks:manage'
const QUICK = { entry: 'a', steps: { a: { kind: 'set', values: { done: 'true' } } } }
const EVENTS = [
  'thread.created',
  'thread.archived',
  'thread.run.queued',
  'schedule.created',
  'schedule.fired',
  'schedule.paused',
  'schedule.deleted',
]

interface Delivery {
  path: string
  headers: IncomingHttpHeaders
  body: string
}

interface Payload {
  type: string
  data: Record<string, unknown>
}

describe('thread and schedule events delivered by the worker', () => {
  let weave: WeaveProcesses
  let server: Server
  let host = ''
  const got: Delivery[] = []

  beforeAll(async () => {
    server = createServer((req, res) => {
      const chunks: Buffer[] = []
      req.on('data', (c: Buffer) => chunks.push(c))
      req.on('end', () => {
        got.push({
          path: req.url ?? '/',
          headers: req.headers,
          body: Buffer.concat(chunks).toString(),
        })
        res.writeHead(200).end()
      })
    })
    server.listen(0, '127.0.0.1')
    await once(server, 'listening')
    host = `127.0.0.1:${(server.address() as AddressInfo).port}`
    weave = await startWeave({ env: { WEAVE_HTTP_ALLOW: host } })
  })
  afterAll(async () => {
    server?.closeAllConnections()
    server?.close()
    await weave?.stop()
  })

  it("signs each change to its tenant's webhook, and to no other tenant's", async () => {
    const tokenA = await weave.token('t-events-a', 'alice', SCOPES)
    const tokenB = await weave.token('t-events-b', 'bob', SCOPES)
    const call = (token: string, method: string, path: string, body?: unknown) =>
      weave.call(method, path, { token, ...(body === undefined ? {} : { body }) })
    const subscribe = async (token: string, path: string) =>
      expectJson<{ id: string; secret: string }>(
        await call(token, 'POST', '/v1/webhooks', { url: `http://${host}${path}`, events: EVENTS }),
        201,
      )
    const hookA = await subscribe(tokenA, '/a')
    await subscribe(tokenB, '/b')
    expectJson(await call(tokenA, 'POST', '/v1/graphs', { name: 'quick', spec: QUICK }), 201)

    expectJson(await call(tokenA, 'PUT', '/v1/threads/acct-1', { graph: 'quick' }), 201)
    const run = expectJson<{ id: string }>(
      await call(tokenA, 'POST', '/v1/threads/acct-1/runs', { input: {} }),
      202,
    )
    const schedule = expectJson<{ id: string }>(
      await call(tokenA, 'POST', '/v1/schedules', {
        target: { graph: 'quick' },
        everyMs: 1000,
        overlap: 'allow',
      }),
      201,
    )
    const verified = () =>
      got
        .filter((d) => d.path === '/a')
        .map((d) => new Webhook(hookA.secret).verify(d.body, d.headers as any) as Payload)
    // A worker's tick fires the schedule: its event comes from the worker's transaction.
    await waitUntil(
      () => verified().some((p) => p.type === 'schedule.fired'),
      30_000,
      'a schedule.fired delivery',
    )
    expectJson(await call(tokenA, 'POST', `/v1/schedules/${schedule.id}/pause`), 200)
    expect((await call(tokenA, 'DELETE', `/v1/schedules/${schedule.id}`)).status).toBe(204)
    await waitUntil(
      async () => (await call(tokenA, 'GET', `/v1/runs/${run.id}`)).body?.status === 'completed',
      30_000,
      'the thread run to complete',
    )
    expect((await call(tokenA, 'DELETE', '/v1/threads/acct-1')).status).toBe(204)
    await waitUntil(
      () => verified().some((p) => p.type === 'thread.archived'),
      30_000,
      'a thread.archived delivery',
    )
    await waitUntil(
      () => verified().some((p) => p.type === 'schedule.deleted'),
      30_000,
      'a schedule.deleted delivery',
    )

    const payloads = verified()
    const types = new Set(payloads.map((p) => p.type))
    expect([...types].sort()).toEqual([...EVENTS].sort())
    expect(payloads.find((p) => p.type === 'thread.run.queued')!.data).toMatchObject({
      thread: 'acct-1',
      runId: run.id,
    })
    const fired = payloads.find((p) => p.type === 'schedule.fired')!
    expect(fired.data).toMatchObject({ schedule: schedule.id, manual: false })
    expect(fired.data.runId).toEqual(expect.any(String))
    // Each delivery's webhook-id is its own, so a receiver can drop a retried one.
    const ids = got.filter((d) => d.path === '/a').map((d) => d.headers['webhook-id'])
    expect(new Set(ids).size).toBe(ids.length)
    // Tenant B's webhook heard nothing of tenant A's changes.
    expect(got.filter((d) => d.path === '/b')).toEqual([])
  }, 90_000)
})
