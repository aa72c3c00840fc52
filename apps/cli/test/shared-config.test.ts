import { loadConfig } from '@weave/api'
import { loadWorkerConfig } from '@weave/worker'
import { describe, expect, it } from 'vitest'

// The API and the workers read the variables they share by one set of rules: a value one of
// them takes, the other takes the same way, and one refused by either is refused by both.
const API_ENV = { WEAVE_JWT_SECRET: 's'.repeat(32) }

const both = (env: Record<string, string>) => ({
  api: () => loadConfig({ ...API_ENV, ...env }),
  worker: () => loadWorkerConfig({ ...API_ENV, ...env }),
})

describe('the configuration the API and the workers share', () => {
  it('gives both the same database, queue, outside-world and secrets settings', () => {
    const env = {
      WEAVE_DATABASE_URL: 'postgres://runtime@db:5432/weave',
      WEAVE_MIGRATE_DATABASE_URL: 'postgres://owner@db:5432/weave',
      REDIS_URL: 'redis://cache:6380',
      WEAVE_QUEUE_PREFIX: 'team.a',
      WEAVE_WORKER_CONCURRENCY: '3',
      WEAVE_HTTP_ALLOW: 'a.example.com, b.example.com',
      WEAVE_HANDLERS: './handlers.js',
      WEAVE_SECRETS_KEY: 'cd'.repeat(32),
      LOG_LEVEL: 'debug',
    }
    const api = both(env).api()
    const worker = both(env).worker()
    expect(worker).toMatchObject({
      databaseUrl: api.databaseUrl,
      migrateDatabaseUrl: api.migrateDatabaseUrl,
      redisUrl: api.redisUrl,
      queuePrefix: api.queuePrefix,
      concurrency: api.workerConcurrency,
      httpAllow: api.httpAllow,
      handlerModules: api.handlers,
      logLevel: api.logLevel,
    })
    expect(worker.secretsKey?.equals(api.secretsKey!)).toBe(true)
    expect(api.queuePrefix).toBe('team.a')
  })

  it('counts an empty value as unset in both', () => {
    const api = both({ WEAVE_QUEUE_PREFIX: '', REDIS_URL: '' }).api()
    const worker = both({ WEAVE_QUEUE_PREFIX: '', REDIS_URL: '' }).worker()
    expect([api.queuePrefix, worker.queuePrefix]).toEqual(['weave', 'weave'])
    expect([api.redisUrl, worker.redisUrl]).toEqual(Array(2).fill('redis://127.0.0.1:6379'))
  })

  it.each([
    ['WEAVE_QUEUE_PREFIX', 'a:b'],
    ['REDIS_URL', 'http://cache'],
    ['WEAVE_DATABASE_URL', 'mysql://db/weave'],
    ['WEAVE_LLM_BASE_URL', 'ftp://llm'],
    ['WEAVE_WORKER_CONCURRENCY', '0'],
  ])('refuses %s=%s in both', (name, value) => {
    const { api, worker } = both({ [name]: value })
    expect(api).toThrow(new RegExp(name))
    expect(worker).toThrow(new RegExp(name))
  })
})
