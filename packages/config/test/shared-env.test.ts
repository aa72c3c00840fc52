import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { databaseUrlsOf, llmOf, secretsKeyOf, SharedEnv, withoutEmptyValues } from '@weave/config'

const Shared = z.object(SharedEnv)
const parse = (env: Record<string, string>) => Shared.parse(withoutEmptyValues(env))

describe('the shared environment', () => {
  it('counts an empty or blank value as unset', () => {
    expect(withoutEmptyValues({ A: '', B: '  ', C: 'x', D: undefined })).toEqual({ C: 'x' })
    expect(parse({ REDIS_URL: '', WEAVE_QUEUE_PREFIX: ' ' })).toMatchObject({
      REDIS_URL: 'redis://127.0.0.1:6379',
      WEAVE_QUEUE_PREFIX: 'weave',
    })
  })

  it('reads lists, the queue prefix and the llm endpoint', () => {
    const env = parse({
      WEAVE_HTTP_ALLOW: ' a.example.com, ,127.0.0.1:8080 ',
      WEAVE_QUEUE_PREFIX: 'team.a_1-x',
      WEAVE_LLM_BASE_URL: 'http://127.0.0.1:9999/v1',
    })
    expect(env.WEAVE_HTTP_ALLOW).toEqual(['a.example.com', '127.0.0.1:8080'])
    expect(env.WEAVE_QUEUE_PREFIX).toBe('team.a_1-x')
    expect(llmOf(env)).toEqual({ baseUrl: 'http://127.0.0.1:9999/v1' })
    expect(llmOf(parse({}))).toBeUndefined()
  })

  it('refuses a queue prefix Redis keys should not carry and URLs of the wrong kind', () => {
    expect(() => parse({ WEAVE_QUEUE_PREFIX: 'a:b' })).toThrow(/A-Z a-z 0-9/)
    expect(() => parse({ REDIS_URL: 'http://x' })).toThrow(/redis:\/\//)
    expect(() => parse({ WEAVE_DATABASE_URL: 'mysql://x/db' })).toThrow(/postgres:\/\//)
    expect(() => parse({ WEAVE_LLM_BASE_URL: 'file:///etc/passwd' })).toThrow(/http\(s\)/)
  })

  it('pairs the database URLs, a legacy DATABASE_URL standing for both', () => {
    expect(databaseUrlsOf(parse({}))).toEqual({
      runtime: 'postgres://weave_runtime@127.0.0.1:5432/weave',
      migrate: 'postgres://postgres@127.0.0.1:5432/weave',
    })
    const legacy = 'postgres://app@db:5432/weave'
    expect(databaseUrlsOf(parse({ DATABASE_URL: legacy }))).toEqual({
      runtime: legacy,
      migrate: legacy,
    })
  })

  it('derives the secrets key from the development JWT secret, never in production', () => {
    const secret = 'x'.repeat(32)
    const key = secretsKeyOf({ ...parse({}), WEAVE_JWT_SECRET: secret })
    expect(key).toBeInstanceOf(Buffer)
    expect(key).toHaveLength(32)
    expect(secretsKeyOf({ ...parse({ NODE_ENV: 'production' }), WEAVE_JWT_SECRET: secret })).toBe(
      undefined,
    )
    const set = 'ab'.repeat(32)
    expect(secretsKeyOf(parse({ WEAVE_SECRETS_KEY: set }))?.toString('hex')).toBe(set)
  })
})
