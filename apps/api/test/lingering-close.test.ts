import { once } from 'node:events'
import { connect, type Socket } from 'node:net'
import Fastify from 'fastify'
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { afterEach, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { buildApp, type App } from '../src/app.js'
import { ForbiddenError } from '../src/http/app-errors.js'
import { lingeringClosePlugin } from '../src/http/lingering-close.js'
import { captureLog, testConfig } from './support.js'

const MiB = 1024 * 1024

const routes: FastifyPluginAsyncZod = async (app) => {
  app.post('/notes', { schema: { body: z.object({ text: z.string() }) } }, async (request) => ({
    length: request.body.text.length,
  }))
  // Refused before its body is parsed, as a request without a valid token is.
  app.post(
    '/closed',
    {
      onRequest: async () => {
        throw new ForbiddenError('Not for you.')
      },
    },
    async () => ({}),
  )
}

const apps: App[] = []
afterEach(async () => {
  await Promise.all(apps.splice(0).map((app) => app.close()))
})

/** The API (its default limits), or the plugin alone on a bare Fastify with the given limits. */
async function listening(limits?: { maxBytes?: number; maxMs?: number }): Promise<number> {
  const app = limits
    ? (Fastify({ bodyLimit: MiB }).register(lingeringClosePlugin, limits) as unknown as App)
    : buildApp({ config: testConfig(), log: captureLog().log, routes: [routes] })
  if (limits) app.post('/notes', async () => ({}))
  apps.push(app)
  await app.listen({ port: 0, host: '127.0.0.1' })
  const address = app.server.address()
  if (address === null || typeof address === 'string') throw new Error('no port')
  return address.port
}

/** What a raw-socket client saw: everything the server sent, and how the connection ended. */
interface Exchange {
  response: string
  /** Bytes of the body the client got written before the connection ended. */
  sent: number
  /** The socket error, e.g. ECONNRESET, when the connection was reset rather than closed. */
  error?: string
}

/**
 * POSTs a JSON body of `bodyBytes` over a plain socket, writing it as fast as the server takes
 * it while reading whatever comes back, as a client that does not wait for `100 Continue` does.
 */
async function postOverSocket(port: number, path: string, bodyBytes: number): Promise<Exchange> {
  // Half-open: the server's FIN after its answer does not stop the client sending.
  const socket: Socket = connect({ port, host: '127.0.0.1', allowHalfOpen: true })
  await once(socket, 'connect')
  const received: Buffer[] = []
  const exchange: Exchange = { response: '', sent: 0 }
  socket.on('data', (chunk: Buffer) => received.push(chunk))
  socket.on('error', (err: NodeJS.ErrnoException) => (exchange.error = err.code ?? err.message))
  const closed = new Promise((resolve) => socket.once('close', resolve))
  socket.write(
    `POST ${path} HTTP/1.1\r\nHost: weave\r\nContent-Type: application/json\r\n` +
      `Content-Length: ${bodyBytes}\r\n\r\n`,
  )
  const chunk = Buffer.alloc(64 * 1024, 0x61)
  let isOpen = true
  void closed.then(() => (isOpen = false))
  while (isOpen && exchange.sent < bodyBytes) {
    const piece = chunk.subarray(0, Math.min(chunk.length, bodyBytes - exchange.sent))
    exchange.sent += piece.length
    if (!socket.write(piece)) {
      await new Promise((resolve) => {
        socket.once('drain', resolve)
        socket.once('close', resolve)
      })
    }
  }
  // Sent in full: the client closes its side, as it would after reading the answer.
  if (isOpen) socket.end()
  await closed
  exchange.response = Buffer.concat(received).toString()
  return exchange
}

/** The status line, headers and body of one HTTP/1.1 response; asserts it arrived whole. */
function parseResponse(text: string) {
  const end = text.indexOf('\r\n\r\n')
  expect(end, text.slice(0, 200)).toBeGreaterThan(0)
  const [statusLine, ...headerLines] = text.slice(0, end).split('\r\n')
  const headers = new Map(
    headerLines.map((line) => {
      const colon = line.indexOf(':')
      return [line.slice(0, colon).toLowerCase(), line.slice(colon + 1).trim()] as const
    }),
  )
  const body = text.slice(end + 4)
  expect(Buffer.byteLength(body)).toBe(Number(headers.get('content-length')))
  return { statusLine, headers, body: JSON.parse(body) as Record<string, unknown> }
}

describe('a request body the server does not read to its end', () => {
  it('gets its 413 whole while the client is still sending a 16 MiB body', async () => {
    const port = await listening()
    const exchange = await postOverSocket(port, '/notes', 16 * MiB)

    expect(exchange.error).toBeUndefined()
    expect(exchange.sent).toBe(16 * MiB)
    const { statusLine, headers, body } = parseResponse(exchange.response)
    expect(statusLine).toBe('HTTP/1.1 413 Payload Too Large')
    expect(headers.get('content-type')).toBe('application/problem+json; charset=utf-8')
    expect(headers.get('connection')).toBe('close')
    expect(body).toMatchObject({ type: '/problems/payload-too-large', status: 413 })
  })

  it('gets an answer given before the body was parsed whole, and the connection closes', async () => {
    const port = await listening()
    const exchange = await postOverSocket(port, '/closed', 4 * MiB)

    expect(exchange.error).toBeUndefined()
    const { statusLine, headers, body } = parseResponse(exchange.response)
    expect(statusLine).toBe('HTTP/1.1 403 Forbidden')
    expect(headers.get('connection')).toBe('close')
    expect(body).toMatchObject({ status: 403 })
  })

  it('stops reading once the discarded bytes pass the bound', async () => {
    const port = await listening({ maxBytes: MiB, maxMs: 60_000 })
    const exchange = await postOverSocket(port, '/notes', 256 * MiB)

    // Cut off long before the client could send it all (kernel buffers hold a few MiB at most).
    expect(exchange.sent).toBeLessThan(128 * MiB)
  })

  it('stops waiting for a client that sends too slowly once the time limit passes', async () => {
    const port = await listening({ maxBytes: 64 * MiB, maxMs: 200 })
    const socket = connect({ port, host: '127.0.0.1', allowHalfOpen: true })
    await once(socket, 'connect')
    socket.on('error', () => undefined)
    const closed = new Promise((resolve) => socket.once('close', resolve))
    socket.write(
      'POST /notes HTTP/1.1\r\nHost: weave\r\nContent-Type: application/json\r\n' +
        `Content-Length: ${16 * MiB}\r\n\r\n`,
    )
    // A trickle that would take hours to finish; the server cuts it off.
    const trickle = setInterval(() => socket.write('a'), 20)
    await closed
    clearInterval(trickle)
    expect(socket.destroyed).toBe(true)
  })

  it('keeps a request whose body fits answering on a kept-alive connection', async () => {
    const port = await listening()
    const res = await fetch(`http://127.0.0.1:${port}/notes`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ text: 'hello' }),
    })
    expect(res.status).toBe(200)
    expect(res.headers.get('connection')).not.toBe('close')
    expect(await res.json()).toEqual({ length: 5 })
  })
})
