import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startLocalServer, type LocalServer } from './support/local-server.js'
import { runOneStep } from './support/one-step.js'

let server: LocalServer
const scripts = new Map<string, Array<{ status: number; body?: unknown; headers?: object }>>()

beforeAll(async () => {
  server = await startLocalServer((req, res) => {
    const path = new URL(req.url, 'http://x').pathname
    if (path === '/hang') return
    if (path === '/big') {
      res.writeHead(200, { 'content-type': 'text/plain' })
      res.end('x'.repeat(1_100_000))
      return
    }
    if (path === '/redirect') {
      res.writeHead(302, { location: 'http://169.254.169.254/latest' })
      res.end()
      return
    }
    if (path === '/text') {
      res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' })
      res.end(`hello ${req.headers['x-who']}`)
      return
    }
    const script = scripts.get(path)
    const next = script?.shift() ?? { status: 200, body: { ok: true } }
    res.writeHead(next.status, { 'content-type': 'application/json', ...next.headers })
    res.end(JSON.stringify(next.body ?? {}))
  })
})
afterAll(() => server.close())

const local = { allow: ['127.0.0.1'] }
const received = (path: string) => server.received.filter((r) => r.url.startsWith(path))

describe('http step', () => {
  it('renders URL and headers, sends the JSON body and saves { status, headers, body }', async () => {
    scripts.set('/orders', [{ status: 201, body: { id: 7 } }])
    const r = await runOneStep(
      {
        kind: 'http',
        method: 'POST',
        url: `${server.origin}/orders?customer={{ customer }}`,
        headers: { 'X-Customer': '{{ customer }}' },
        body: "{ 'total': amount * 2 }",
      },
      { http: local },
      { customer: 'ada', amount: 21 },
    )
    expect(r.stopReason).toBe('completed')
    expect(r.state.step).toMatchObject({ status: 201, body: { id: 7 } })
    expect((r.state.step as { headers: Record<string, string> }).headers['content-type']).toBe(
      'application/json',
    )
    const [sent] = received('/orders?customer=ada')
    expect(JSON.parse(sent!.body)).toEqual({ total: 42 })
    expect(sent!.headers['x-customer']).toBe('ada')
    expect(sent!.headers['content-type']).toBe('application/json')
    expect(sent!.headers['idempotency-key']).toBe(`${r.runId}:step:1`)
  })

  it('saves a text body as text under saveAs', async () => {
    const r = await runOneStep(
      {
        kind: 'http',
        method: 'GET',
        url: `${server.origin}/text`,
        headers: { 'x-who': 'me' },
        saveAs: 'page',
      },
      { http: local },
    )
    expect(r.state.page).toMatchObject({ status: 200, body: 'hello me' })
  })

  it('retries 5xx and 429 with the same idempotency key, then succeeds', async () => {
    scripts.set('/flaky', [{ status: 503 }, { status: 429 }, { status: 200, body: { done: 1 } }])
    const r = await runOneStep(
      {
        kind: 'http',
        method: 'PUT',
        url: `${server.origin}/flaky`,
        body: '1',
        retry: { attempts: 3, backoffMs: 1 },
      },
      { http: local },
    )
    expect(r.stopReason).toBe('completed')
    const keys = received('/flaky').map((q) => q.headers['idempotency-key'])
    expect(keys).toEqual([`${r.runId}:step:1`, `${r.runId}:step:1`, `${r.runId}:step:1`])
  })

  it('fails with the last status when the retries run out', async () => {
    scripts.set('/down', [{ status: 500 }, { status: 502 }])
    const r = await runOneStep(
      {
        kind: 'http',
        method: 'GET',
        url: `${server.origin}/down?token=secret`,
        retry: { attempts: 2, backoffMs: 1 },
      },
      { http: local },
    )
    expect(r.stopReason).toBe('error')
    expect(r.error).toMatchObject({ name: 'HttpStepError', code: 'http-step', status: 502 })
    expect(r.state.__error).toBe(
      `step "step": GET ${server.origin}/down answered 502 (expected 2xx)`,
    )
    expect(received('/down')).toHaveLength(2)
  })

  it('accepts an expected non-2xx status without retrying it', async () => {
    scripts.set('/gone', [{ status: 503, body: { maintenance: true } }])
    const r = await runOneStep(
      {
        kind: 'http',
        method: 'GET',
        url: `${server.origin}/gone`,
        expectStatus: [200, 503],
        retry: { attempts: 3, backoffMs: 1 },
      },
      { http: local },
    )
    expect(r.state.step).toMatchObject({ status: 503, body: { maintenance: true } })
    expect(received('/gone')).toHaveLength(1)
  })

  it('retries network errors and reports the attempts', async () => {
    const closed = await startLocalServer(() => undefined)
    const origin = closed.origin
    await closed.close()
    const r = await runOneStep(
      { kind: 'http', method: 'GET', url: `${origin}/x`, retry: { attempts: 2, backoffMs: 1 } },
      { http: local },
    )
    expect(r.stopReason).toBe('error')
    expect(r.state.__error).toMatch(
      /^step "step": GET .* failed after 2 attempt\(s\): fetch failed/,
    )
  })

  it('times out a request that never answers', async () => {
    const r = await runOneStep(
      { kind: 'http', method: 'GET', url: `${server.origin}/hang`, timeoutMs: 50 },
      { http: local },
    )
    expect(r.state.__error).toMatch(/failed after 1 attempt\(s\): timed out after 50 ms/)
  })

  it('does not follow redirects', async () => {
    const r = await runOneStep(
      { kind: 'http', method: 'GET', url: `${server.origin}/redirect`, expectStatus: 302 },
      { http: local },
    )
    expect(r.state.step).toMatchObject({
      status: 302,
      headers: { location: 'http://169.254.169.254/latest' },
    })
  })

  it('refuses a response body over 1 MB', async () => {
    const r = await runOneStep(
      { kind: 'http', method: 'GET', url: `${server.origin}/big` },
      { http: local },
    )
    expect(r.state.__error).toMatch(/the response body is larger than 1048576 bytes/)
  })

  it('refuses a header value with a line break', async () => {
    const r = await runOneStep(
      { kind: 'http', method: 'GET', url: `${server.origin}/x`, headers: { 'x-a': '{{ v }}' } },
      { http: local },
      { v: 'a\r\nx-injected: 1' },
    )
    expect(r.state.__error).toBe('step "step": header "x-a" contains a line break or NUL')
  })

  it('stops the run as cancelled when the signal aborts mid-request', async () => {
    const ac = new AbortController()
    const waiting = runOneStep(
      { kind: 'http', method: 'GET', url: `${server.origin}/hang?cancel` },
      { http: local },
      {},
      { signal: ac.signal },
    )
    const deadline = Date.now() + 5000
    while (received('/hang?cancel').length === 0 && Date.now() < deadline) {
      await new Promise((resolve) => setImmediate(resolve))
    }
    ac.abort()
    expect((await waiting).stopReason).toBe('cancelled')
  })
})

describe('http step egress', () => {
  const noLookup = () => Promise.reject(new Error('lookup must not be called'))
  const noFetch = (() => Promise.reject(new Error('fetch must not be called'))) as typeof fetch

  it('refuses a host that is not in the allow list', async () => {
    const r = await runOneStep(
      { kind: 'http', method: 'GET', url: 'https://payments.example/refunds' },
      { http: { allow: ['127.0.0.1'], lookup: noLookup, fetch: noFetch } },
    )
    expect(r.error).toMatchObject({ name: 'EgressDeniedError', code: 'egress-denied' })
    expect(r.state.__error).toBe(
      'step "step": host "payments.example" is not in the http allow list',
    )
  })

  it('refuses a public-looking host that resolves to a private address', async () => {
    const r = await runOneStep(
      { kind: 'http', method: 'GET', url: 'https://api.partner.example/x' },
      { http: { allow: [], lookup: async () => ['10.0.0.1'], fetch: noFetch } },
    )
    expect(r.state.__error).toMatch(/resolves to the non-public address 10\.0\.0\.1/)
  })

  it('does not let a wildcard entry unlock a private address', async () => {
    const r = await runOneStep(
      { kind: 'http', method: 'GET', url: 'https://db.corp.example/x' },
      {
        http: {
          allow: ['*.corp.example'],
          lookup: async () => ['::ffff:10.1.2.3'],
          fetch: noFetch,
        },
      },
    )
    expect(r.error?.name).toBe('EgressDeniedError')
  })

  it('refuses a loopback literal unless it is listed, and other schemes always', async () => {
    const loop = await runOneStep(
      { kind: 'http', method: 'GET', url: `${server.origin}/x` },
      { http: { allow: [], fetch: noFetch } },
    )
    expect(loop.state.__error).toMatch(/non-public address 127\.0\.0\.1/)
    const file = await runOneStep(
      { kind: 'http', method: 'GET', url: 'file:///etc/passwd' },
      { http: { allow: [], fetch: noFetch } },
    )
    expect(file.state.__error).toMatch(/scheme "file" is not allowed/)
  })

  it('calls a resolved public address when the list is empty', async () => {
    const calls: string[] = []
    const fakeFetch = (async (url: string) => {
      calls.push(url)
      return new Response('{"ok":true}', { headers: { 'content-type': 'application/json' } })
    }) as typeof fetch
    const r = await runOneStep(
      { kind: 'http', method: 'GET', url: 'https://api.partner.example/x' },
      { http: { allow: [], lookup: async () => ['93.184.215.14'], fetch: fakeFetch } },
    )
    expect(r.state.step).toMatchObject({ status: 200, body: { ok: true } })
    expect(calls).toEqual(['https://api.partner.example/x'])
  })
})
