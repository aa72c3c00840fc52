import { generateKeyPairSync, randomBytes } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { main } from '../src/main.js'

const JWT_SECRET = 'p'.repeat(40)
const SECRETS_KEY = randomBytes(32).toString('hex')
const SIGNING_KEY = generateKeyPairSync('ed25519')
  .privateKey.export({ format: 'pem', type: 'pkcs8' })
  .toString()

/** Runs `weave <command>` with `env` only, capturing what it prints. */
async function run(command: string, env: Record<string, string>) {
  let stderr = ''
  const code = await main([command], {
    stdout: () => undefined,
    stderr: (text) => {
      stderr += text
    },
    // Nothing answers here: a start that got past its keys would fail on the database instead.
    env: {
      ...env,
      WEAVE_DATABASE_URL: 'postgres://weave_runtime@127.0.0.1:1/weave',
      REDIS_URL: 'redis://127.0.0.1:1',
    },
  })
  return { code, stderr }
}

describe('NODE_ENV=production', () => {
  it.each(['api', 'worker', 'start'])(
    '`weave %s` refuses to start without the secrets and audit signing keys, naming both',
    async (command) => {
      const { code, stderr } = await run(command, {
        NODE_ENV: 'production',
        WEAVE_JWT_SECRET: JWT_SECRET,
      })
      expect(code).toBe(2)
      expect(stderr).toMatch(/WEAVE_SECRETS_KEY/)
      expect(stderr).toMatch(/WEAVE_AUDIT_SIGNING_KEY/)
    },
  )

  it('names only the missing one', async () => {
    const { code, stderr } = await run('api', {
      NODE_ENV: 'production',
      WEAVE_JWT_SECRET: JWT_SECRET,
      WEAVE_SECRETS_KEY: SECRETS_KEY,
    })
    expect(code).toBe(2)
    expect(stderr).toMatch(/WEAVE_AUDIT_SIGNING_KEY/)
    expect(stderr).not.toMatch(/WEAVE_SECRETS_KEY/)
  })

  it('refuses `weave api` without a JWT key: no development secret is made', async () => {
    const { code, stderr } = await run('api', {
      NODE_ENV: 'production',
      WEAVE_SECRETS_KEY: SECRETS_KEY,
      WEAVE_AUDIT_SIGNING_KEY: SIGNING_KEY,
    })
    expect(code).toBe(2)
    expect(stderr).toMatch(/WEAVE_JWT_SECRET/)
  })

  it('gets past the keys when all are set (and stops at the unreachable database)', async () => {
    const { stderr } = await run('api', {
      NODE_ENV: 'production',
      WEAVE_JWT_SECRET: JWT_SECRET,
      WEAVE_SECRETS_KEY: SECRETS_KEY,
      WEAVE_AUDIT_SIGNING_KEY: SIGNING_KEY,
    })
    expect(stderr).not.toMatch(/needs WEAVE_/)
    expect(stderr).toMatch(/postgres|database|unreachable/i)
  })

  it('is not required outside production, where the keys are derived', async () => {
    const { stderr } = await run('worker', { WEAVE_JWT_SECRET: JWT_SECRET })
    expect(stderr).not.toMatch(/needs WEAVE_/)
  })
})
