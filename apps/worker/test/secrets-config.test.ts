import { randomBytes } from 'node:crypto'
import { deriveSecretsKey } from '@weave/db'
import { describe, expect, it } from 'vitest'
import { WorkerConfigError, loadWorkerConfig } from '../src/config.js'

const JWT_SECRET = 'a-development-jwt-secret-of-32-bytes-or-more'

describe('the worker configuration', () => {
  it('reads WEAVE_SECRETS_KEY as 32 bytes and refuses other lengths', () => {
    const key = randomBytes(32)
    expect(loadWorkerConfig({ WEAVE_SECRETS_KEY: key.toString('base64') }).secretsKey).toEqual(key)
    expect(() => loadWorkerConfig({ WEAVE_SECRETS_KEY: 'abcd' })).toThrow(WorkerConfigError)
  })

  it('derives the same development key as the API from the JWT secret, not in production', () => {
    expect(loadWorkerConfig({ WEAVE_JWT_SECRET: JWT_SECRET }).secretsKey).toEqual(
      deriveSecretsKey(JWT_SECRET),
    )
    const production = { WEAVE_JWT_SECRET: JWT_SECRET, NODE_ENV: 'production' }
    expect(loadWorkerConfig(production).secretsKey).toBeUndefined()
    expect(loadWorkerConfig({ WEAVE_SECRETS_KEY: '' }).secretsKey).toBeUndefined()
  })

  it('points approval links at WEAVE_PUBLIC_URL, else at the API on 127.0.0.1:PORT', () => {
    expect(loadWorkerConfig({}).publicUrl).toBe('http://127.0.0.1:3000')
    expect(loadWorkerConfig({ PORT: '8080' }).publicUrl).toBe('http://127.0.0.1:8080')
    const configured = loadWorkerConfig({ WEAVE_PUBLIC_URL: 'https://weave.example.com' })
    expect(configured.publicUrl).toBe('https://weave.example.com')
    expect(() => loadWorkerConfig({ WEAVE_PUBLIC_URL: 'ftp://x' })).toThrow(WorkerConfigError)
  })
})
