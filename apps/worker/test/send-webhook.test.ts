import { subscribe, unsubscribe } from 'node:diagnostics_channel'
import { once } from 'node:events'
import { createServer, type IncomingMessage, type Server } from 'node:http'
import type { AddressInfo, Socket } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { retryDelayMs, DEFAULT_DELIVERY_SETTINGS } from '../src/webhooks/delivery-settings.js'
import { sendWebhook } from '../src/webhooks/send-webhook.js'

let server: Server
let port: number
const seen: IncomingMessage[] = []

beforeAll(async () => {
  server = createServer((req, res) => {
    seen.push(req)
    if (req.url === '/silent') return
    if (req.url === '/moved') return res.writeHead(301, { location: '/ok' }).end()
    res.writeHead(req.url === '/ok' ? 204 : 503).end()
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  port = (server.address() as AddressInfo).port
})
afterAll(() => {
  server.closeAllConnections()
  server.close()
})

const send = (
  url: string,
  o: { allow?: string[]; lookup?: (h: string) => Promise<string[]> } = {},
) =>
  sendWebhook({
    url,
    headers: { 'content-type': 'application/json' },
    body: '{}',
    allow: o.allow ?? [`127.0.0.1:${port}`],
    timeoutMs: 300,
    ...(o.lookup ? { lookup: o.lookup } : {}),
  })

describe('sending a webhook', () => {
  it('succeeds on a 2xx and reports any other status without an error', async () => {
    expect(await send(`http://127.0.0.1:${port}/ok`)).toEqual({
      statusCode: 204,
      error: null,
      isSuccess: true,
    })
    expect(await send(`http://127.0.0.1:${port}/down`)).toEqual({
      statusCode: 503,
      error: null,
      isSuccess: false,
    })
  })

  it('does not follow a redirect', async () => {
    const before = seen.length
    expect(await send(`http://127.0.0.1:${port}/moved`)).toEqual({
      statusCode: 301,
      error: 'redirects are not followed',
      isSuccess: false,
    })
    expect(seen.slice(before).map((r) => r.url)).toEqual(['/moved'])
  })

  it('refuses a host that resolves to a private address unless it is listed exactly', async () => {
    const lookup = async () => ['127.0.0.1']
    const refused = await send(`http://hooks.test:${port}/ok`, { allow: [], lookup })
    expect(refused).toMatchObject({ statusCode: null, isSuccess: false })
    expect(refused.error).toMatch(/^refused: .*127\.0\.0\.1/)
    const wildcard = await send(`http://a.hooks.test:${port}/ok`, {
      allow: ['*.hooks.test'],
      lookup,
    })
    expect(wildcard.error).toMatch(/^refused/)
  })

  it('connects to the address it checked, not to a later answer', async () => {
    let lookups = 0
    const lookup = async () => {
      lookups += 1
      return ['127.0.0.1']
    }
    const before = seen.length
    const result = await send(`http://hooks.test:${port}/ok`, {
      allow: [`hooks.test:${port}`],
      lookup,
    })
    expect(result.isSuccess).toBe(true)
    expect(lookups).toBe(1)
    expect(seen.slice(before).map((r) => r.headers.host)).toEqual([`hooks.test:${port}`])
  })

  it('never connects to a later DNS answer that points at a private address', async () => {
    const answers = [['93.184.215.14'], ['127.0.0.1']]
    let lookups = 0
    const lookup = async () => answers[Math.min(lookups++, 1)]!
    // Records where each connection goes and cuts it before it leaves this machine.
    const dialed: string[] = []
    const onSocket = (message: unknown) => {
      const socket = (message as { socket: Socket }).socket
      socket.on('error', () => undefined)
      socket.on('lookup', (_err: Error | null, address: string) => {
        dialed.push(address)
        if (address !== '127.0.0.1') socket.destroy(new Error('test: no traffic off this machine'))
      })
    }
    subscribe('net.client.socket', onSocket)
    const before = seen.length
    try {
      const result = await send(`http://rebind.test:${port}/ok`, { allow: [], lookup })
      expect(result).toMatchObject({ statusCode: null, isSuccess: false })
    } finally {
      unsubscribe('net.client.socket', onSocket)
    }
    expect(lookups).toBe(1)
    expect(dialed).toEqual(['93.184.215.14'])
    expect(seen.length).toBe(before)
  })

  it('reports an unresolvable host and a receiver that does not answer in time', async () => {
    const failing = async () => {
      throw new Error('ENOTFOUND')
    }
    const unresolved = await send('https://nowhere.test/x', { allow: [], lookup: failing })
    expect(unresolved.error).toMatch(/cannot resolve nowhere\.test/)
    const silent = await send(`http://127.0.0.1:${port}/silent`)
    expect(silent).toEqual({
      statusCode: null,
      error: 'no response within 300 ms',
      isSuccess: false,
    })
  })
})

describe('retry delays', () => {
  it('double from the base after each failed attempt, up to the cap', () => {
    const settings = { ...DEFAULT_DELIVERY_SETTINGS, backoffMs: 1000, backoffCapMs: 10_000 }
    expect([1, 2, 3, 4, 5, 40].map((n) => retryDelayMs(settings, n))).toEqual([
      1000, 2000, 4000, 8000, 10_000, 10_000,
    ])
  })
})
