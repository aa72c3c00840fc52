import { Gauge, Registry } from 'prom-client'
import { afterEach, describe, expect, it } from 'vitest'
import { buildApp, type App } from '../src/app.js'
import { hasMetricsToken } from '../src/http/metrics-access.js'
import { captureLog, testConfig } from './support.js'

const TOKEN = 'metrics-token-0123456789abcdef-0123'
const apps: App[] = []

afterEach(async () => {
  await Promise.all(apps.splice(0).map((app) => app.close()))
})

function appWith(env: Record<string, string>): App {
  const registry = new Registry()
  new Gauge({ name: 'weave_probe', help: 'A probe.', registers: [registry] }).set(7)
  const app = buildApp({ config: testConfig(env), log: captureLog().log, metrics: registry })
  apps.push(app)
  return app
}

describe('GET /metrics with WEAVE_METRICS_TOKEN', () => {
  it('answers 401 without the token or with another one, and 200 with it', async () => {
    const app = appWith({ WEAVE_METRICS_TOKEN: TOKEN })
    const scrape = (authorization?: string) =>
      app.inject({
        method: 'GET',
        url: '/metrics',
        headers: authorization === undefined ? {} : { authorization },
      })

    const missing = await scrape()
    expect(missing.statusCode).toBe(401)
    expect(missing.headers['content-type']).toMatch(/^application\/problem\+json/)
    expect(missing.headers['www-authenticate']).toBe('Bearer realm="weave"')
    expect(missing.body).not.toContain('weave_probe')
    for (const wrong of [`Bearer ${TOKEN}x`, `Bearer ${TOKEN.slice(1)}`, TOKEN, 'Bearer ']) {
      const response = await scrape(wrong)
      expect(response.statusCode, wrong).toBe(401)
      expect(response.headers['www-authenticate']).toContain('error="invalid_token"')
    }
    const ok = await scrape(`Bearer ${TOKEN}`)
    expect(ok.statusCode).toBe(200)
    expect(ok.body).toContain('weave_probe 7')
    expect(ok.headers['cache-control']).toBe('no-store')
  })

  it('compares the token whatever its length without throwing', () => {
    expect(hasMetricsToken(`Bearer ${TOKEN}`, TOKEN)).toBe(true)
    expect(hasMetricsToken(`bearer  ${TOKEN} `, TOKEN)).toBe(true)
    expect(hasMetricsToken(undefined, TOKEN)).toBe(false)
    expect(hasMetricsToken('Bearer a', TOKEN)).toBe(false)
    expect(hasMetricsToken(`Bearer ${TOKEN.repeat(10)}`, TOKEN)).toBe(false)
  })
})

describe('WEAVE_API_METRICS_PORT', () => {
  it('serves /metrics on its own port and no longer on the main one', async () => {
    const app = appWith({ WEAVE_API_METRICS_PORT: '0', WEAVE_API_METRICS_HOST: '127.0.0.1' })
    await app.listen({ port: 0, host: '127.0.0.1' })
    const main = await app.inject({ method: 'GET', url: '/metrics' })
    expect(main.statusCode).toBe(404)
    const port = app.metricsAddress()?.port
    expect(port).toBeGreaterThan(0)
    const response = await fetch(`http://127.0.0.1:${port}/metrics`)
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toMatch(/^text\/plain/)
    expect(await response.text()).toContain('weave_probe 7')
    expect((await fetch(`http://127.0.0.1:${port}/v1/runs`)).status).toBe(404)
  })

  it('requires the metrics token there too', async () => {
    const app = appWith({ WEAVE_API_METRICS_PORT: '0', WEAVE_METRICS_TOKEN: TOKEN })
    await app.ready()
    const url = `http://127.0.0.1:${app.metricsAddress()?.port}/metrics`
    const refused = await fetch(url)
    expect(refused.status).toBe(401)
    expect(refused.headers.get('content-type')).toMatch(/^application\/problem\+json/)
    expect(refused.headers.get('www-authenticate')).toBe('Bearer realm="weave"')
    const ok = await fetch(url, { headers: { authorization: `Bearer ${TOKEN}` } })
    expect(ok.status).toBe(200)
  })

  it('stops listening when the app closes', async () => {
    const app = appWith({ WEAVE_API_METRICS_PORT: '0' })
    await app.ready()
    const port = app.metricsAddress()?.port
    await app.close()
    expect(app.metricsAddress()).toBeUndefined()
    await expect(fetch(`http://127.0.0.1:${port}/metrics`)).rejects.toThrow()
  })
})

describe('WEAVE_API_METRICS=off', () => {
  it('serves no /metrics at all', async () => {
    const app = appWith({ WEAVE_API_METRICS: 'off' })
    expect((await app.inject({ method: 'GET', url: '/metrics' })).statusCode).toBe(404)
    await app.ready()
    expect(app.metricsAddress()).toBeUndefined()
  })
})
