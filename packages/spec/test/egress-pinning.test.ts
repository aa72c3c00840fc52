import { gzipSync } from 'node:zlib'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { createEgressPolicy, createPinnedFetch } from '@weave/spec'
import { recordDialedAddresses, type DialedAddresses } from './support/dialed-addresses.js'
import { startLocalServer, type LocalServer } from './support/local-server.js'
import { runOneStep } from './support/one-step.js'

const PUBLIC = '93.184.215.14'

let server: LocalServer
let dialed: DialedAddresses

beforeAll(async () => {
  server = await startLocalServer((req, res) => {
    if (req.url === '/gzip') {
      res.writeHead(200, { 'content-type': 'text/plain', 'content-encoding': 'gzip' })
      res.end(gzipSync('unzipped'))
      return
    }
    if (req.url === '/empty') return void res.writeHead(204).end()
    res.writeHead(200, { 'content-type': 'application/json' })
    res.end(JSON.stringify({ host: req.headers.host }))
  })
  dialed = recordDialedAddresses()
})
afterAll(async () => {
  dialed.stop()
  await server.close()
})
beforeEach(() => {
  dialed.addresses.length = 0
})

/** A resolver that answers each call with the next of `answers` (the last one repeats). */
function rebinding(...answers: string[][]) {
  const calls: string[] = []
  const lookup = async (host: string) => {
    calls.push(host)
    return answers[Math.min(calls.length, answers.length) - 1]!
  }
  return { lookup, calls }
}

describe('http step and DNS rebinding', () => {
  it('connects to the public address it checked, never to a later loopback answer', async () => {
    const dns = rebinding([PUBLIC], ['127.0.0.1'])
    const r = await runOneStep(
      { kind: 'http', method: 'GET', url: `http://rebind.test:${server.port}/secret` },
      { http: { allow: [], lookup: dns.lookup, defaultTimeoutMs: 2000 } },
    )
    expect(r.stopReason).toBe('error')
    expect(r.error?.name).toBe('HttpStepError')
    expect(dns.calls).toEqual(['rebind.test'])
    expect(dialed.addresses).toEqual([PUBLIC])
    expect(server.received.filter((q) => q.url === '/secret')).toEqual([])
  })

  it('keeps retries on the checked address too', async () => {
    const dns = rebinding([PUBLIC], ['127.0.0.1'])
    const r = await runOneStep(
      {
        kind: 'http',
        method: 'GET',
        url: `http://rebind.test:${server.port}/retried`,
        retry: { attempts: 3, backoffMs: 1 },
      },
      { http: { allow: [], lookup: dns.lookup } },
    )
    expect(r.stopReason).toBe('error')
    expect(dialed.addresses).toEqual([PUBLIC, PUBLIC, PUBLIC])
    expect(server.received.filter((q) => q.url === '/retried')).toEqual([])
  })

  it('uses the first answer for a listed host and names the host in Host', async () => {
    const dns = rebinding(['127.0.0.1'], [PUBLIC])
    const r = await runOneStep(
      { kind: 'http', method: 'GET', url: `http://rebind.test:${server.port}/listed` },
      { http: { allow: [`rebind.test:${server.port}`], lookup: dns.lookup } },
    )
    expect(r.state.step).toMatchObject({
      status: 200,
      body: { host: `rebind.test:${server.port}` },
    })
    expect(dns.calls).toHaveLength(1)
    expect(dialed.addresses).toEqual(['127.0.0.1'])
  })
})

describe('egress decisions', () => {
  it('resolve once and carry the addresses they checked', async () => {
    const dns = rebinding([PUBLIC, '2606:4700:4700::1111'], ['127.0.0.1'])
    const decision = await createEgressPolicy([], dns.lookup).decide(new URL('https://a.test/'))
    expect(decision).toMatchObject({ isAllowed: true, addresses: [PUBLIC, '2606:4700:4700::1111'] })
    expect(dns.calls).toEqual(['a.test'])
  })

  it('refuse an answer that is not an IP address', async () => {
    const decision = await createEgressPolicy(['a.test'], async () => ['evil.test']).decide(
      new URL('https://a.test/'),
    )
    expect(decision).toEqual({
      isAllowed: false,
      reason: 'host "a.test" resolves to "evil.test", which is not an IP address',
    })
  })
})

describe('pinned fetch', () => {
  it('reaches the pinned address whatever the name resolves to', async () => {
    const pinned = createPinnedFetch(['127.0.0.1'])
    const res = await pinned(`http://nowhere.invalid:${server.port}/pinned`)
    expect(await res.json()).toEqual({ host: `nowhere.invalid:${server.port}` })
  })

  it('decodes a gzip body and gives a 204 no body', async () => {
    const pinned = createPinnedFetch(['127.0.0.1'])
    expect(await (await pinned(`${server.origin}/gzip`)).text()).toBe('unzipped')
    const empty = await pinned(`${server.origin}/empty`, { method: 'POST', body: 'x' })
    expect([empty.status, empty.body]).toEqual([204, null])
  })

  it('rejects a refused connection like fetch does', async () => {
    const closed = await startLocalServer(() => undefined)
    await closed.close()
    const failed = createPinnedFetch(['127.0.0.1'])(`${closed.origin}/x`)
    await expect(failed).rejects.toMatchObject({
      name: 'TypeError',
      message: 'fetch failed',
      cause: { code: 'ECONNREFUSED' },
    })
  })

  it('needs IP addresses to pin to', () => {
    expect(() => createPinnedFetch([])).toThrow(TypeError)
    expect(() => createPinnedFetch(['example.com'])).toThrow(TypeError)
  })
})
