import { randomBytes } from 'node:crypto'
import { once } from 'node:events'
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { Webhook } from 'standardwebhooks'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { expectJson, expectProblem } from './support/expect-http.js'
import {
  startWeave,
  waitForRun,
  waitUntil,
  type WeaveProcesses,
} from './support/weave-processes.js'

const SCOPES = 'graphs:write runs:write runs:read approvals:read approvals:decide webhooks:manage'

/** A receiver that answers 500 to its first `failures` deliveries, then 200. */
interface Receiver {
  host: string
  url: string
  got: { headers: IncomingHttpHeaders; body: string; status: number }[]
  failures: number
}

describe('outbound webhooks and approval links across processes', () => {
  let weave: WeaveProcesses
  let server: Server
  const receiver: Receiver = { host: '', url: '', got: [], failures: 3 }

  beforeAll(async () => {
    server = createServer((req, res) => {
      const chunks: Buffer[] = []
      req.on('data', (c: Buffer) => chunks.push(c))
      req.on('end', () => {
        const status = receiver.failures-- > 0 ? 500 : 200
        receiver.got.push({ headers: req.headers, body: Buffer.concat(chunks).toString(), status })
        res.writeHead(status).end()
      })
    })
    server.listen(0, '127.0.0.1')
    await once(server, 'listening')
    receiver.host = `127.0.0.1:${(server.address() as AddressInfo).port}`
    receiver.url = `http://${receiver.host}/hooks`
    weave = await startWeave({ env: { WEAVE_HTTP_ALLOW: receiver.host } })
  })
  afterAll(async () => {
    server?.closeAllConnections()
    server?.close()
    await weave?.stop()
  })

  it('signs and retries deliveries, and an approval link approves once', async () => {
    const tenant = `t-${randomBytes(4).toString('hex')}`
    const token = await weave.token(tenant, 'alice', SCOPES)
    const created = expectJson(
      await weave.call('POST', '/v1/webhooks', {
        token,
        // Approval links go only to a webhook given approvals:decide.
        body: {
          url: receiver.url,
          events: ['approval.requested', 'run.completed'],
          scopes: ['approvals:decide'],
        },
      }),
      201,
    )
    const signer = new Webhook(created.secret)
    expectJson(
      await weave.call('POST', '/v1/graphs', {
        token,
        body: {
          name: 'gate',
          spec: { entry: 'review', steps: { review: { kind: 'approval', title: 'Ship?' } } },
        },
      }),
      201,
    )
    const run = expectJson(
      await weave.call('POST', '/v1/runs', { token, body: { graph: 'gate', input: {} } }),
      202,
    )

    await waitUntil(() => receiver.got.some((r) => r.status === 200), 30_000, 'a delivery')
    expect(receiver.got.map((r) => r.status)).toEqual([500, 500, 500, 200])
    const payloads = receiver.got.map(
      (r) => signer.verify(r.body, r.headers as Record<string, string>) as any,
    )
    expect(new Set(receiver.got.map((r) => r.headers['webhook-id'])).size).toBe(1)
    const requested = payloads[3]
    expect(requested).toMatchObject({ type: 'approval.requested', data: { runId: run.id } })
    // The receiver has answered before the worker records the attempt; wait for the record.
    let deliveries: any
    await waitUntil(
      async () => {
        deliveries = expectJson(
          await weave.call('GET', `/v1/webhooks/${created.id}/deliveries`, { token }),
          200,
        )
        return deliveries.items[0]?.status !== 'pending'
      },
      15_000,
      () => `the delivery's outcome (last seen ${deliveries?.items[0]?.status})`,
    )
    expect(deliveries.items[0]).toMatchObject({
      status: 'succeeded',
      eventType: 'approval.requested',
    })
    expect(deliveries.items[0].attempts.map((a: any) => a.statusCode)).toEqual([500, 500, 500, 200])

    const { approveUrl, rejectUrl } = requested.data as { approveUrl: string; rejectUrl: string }
    const path = new URL(approveUrl).pathname
    const tampered = path.slice(0, -1) + (path.endsWith('A') ? 'B' : 'A')
    expectProblem(await weave.call('POST', tampered), 404)
    expectJson(await weave.call('POST', path, { body: { comment: 'from chat' } }), 200)
    expectProblem(await weave.call('POST', path), 409)
    expectProblem(await weave.call('POST', new URL(rejectUrl).pathname), 409)
    await waitForRun(weave, token, run.id, ['completed'])

    await waitUntil(
      () => receiver.got.some((r) => JSON.parse(r.body).type === 'run.completed'),
      15_000,
      'the run.completed delivery',
    )
    const completed = receiver.got.find((r) => JSON.parse(r.body).type === 'run.completed')!
    expect(() =>
      signer.verify(completed.body, completed.headers as Record<string, string>),
    ).not.toThrow()
  }, 60_000)
})
