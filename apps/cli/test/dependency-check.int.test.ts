import { spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { createServer } from 'node:net'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { TEST_DATABASE_URL, TEST_REDIS_URL } from '../../../test/support/service-urls.js'
import { findUnreachableDependency } from '../src/dependency-check.js'

const ROOT = fileURLToPath(new URL('../../..', import.meta.url))

/** A port nothing listens on: the kernel handed it out a moment ago and it was closed again. */
async function closedPort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const address = server.address()
  await new Promise<void>((resolve) => server.close(() => resolve()))
  if (address === null || typeof address === 'string') throw new Error('no port')
  return address.port
}

interface CliRun {
  code: number | null
  stdout: string
  stderr: string
}

/** Runs `weave <command>` as `npm start` does, with `env` on top of a clean, local setup. */
function runCli(command: string, env: Record<string, string>): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'apps/cli/src/main.ts', command], {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH,
        NODE_ENV: 'development',
        HOST: '127.0.0.1',
        LOG_LEVEL: 'warn',
        // A configured key, so the run writes no development secret into the repository.
        WEAVE_JWT_SECRET: randomBytes(32).toString('hex'),
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()))
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
    // A CLI that hangs (retrying forever) is the failure this guards against: stop it, well past
    // what loading the CLI takes on a loaded machine, so the exit code (null) tells.
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000)
    child.on('error', reject)
    child.on('close', (code) => {
      clearTimeout(timer)
      resolve({ code, stdout, stderr })
    })
  })
}

describe('the start-up dependency check', () => {
  it('names a refused Postgres, where it is without the password, and the variable to set', async () => {
    const port = await closedPort()
    const problem = await findUnreachableDependency({
      postgres: { url: `postgres://u:secret@127.0.0.1:${port}/db`, role: 'migrate' },
    })
    expect(problem).toBe(
      `cannot reach Postgres at postgres://u@127.0.0.1:${port}/db (ECONNREFUSED): is it running? ` +
        "Set WEAVE_MIGRATE_DATABASE_URL to the tables' owner's URL.",
    )
  })

  it('points the API and worker at WEAVE_DATABASE_URL, and hides a password parameter too', async () => {
    const port = await closedPort()
    const problem = await findUnreachableDependency({
      postgres: { url: `postgres://app@127.0.0.1:${port}/db?password=secret`, role: 'runtime' },
    })
    expect(problem).toBe(
      `cannot reach Postgres at postgres://app@127.0.0.1:${port}/db (ECONNREFUSED): is it ` +
        "running? Set WEAVE_DATABASE_URL to the runtime login's URL.",
    )
  })

  it('names a refused Redis, where it is without the password, and REDIS_URL', async () => {
    const port = await closedPort()
    const problem = await findUnreachableDependency({
      redis: `redis://:secret@127.0.0.1:${port}`,
    })
    expect(problem).toBe(
      `cannot reach Redis at redis://127.0.0.1:${port} (ECONNREFUSED): is it running? Set REDIS_URL.`,
    )
  })

  it('reports Postgres first when both are down', async () => {
    const [pgPort, redisPort] = [await closedPort(), await closedPort()]
    const problem = await findUnreachableDependency({
      postgres: { url: `postgres://postgres@127.0.0.1:${pgPort}/weave`, role: 'migrate' },
      redis: `redis://127.0.0.1:${redisPort}`,
    })
    expect(problem).toMatch(/^cannot reach Postgres at /)
  })

  it('passes the local Postgres and Redis', async () => {
    await expect(
      findUnreachableDependency({
        postgres: { url: TEST_DATABASE_URL, role: 'migrate' },
        redis: TEST_REDIS_URL,
      }),
    ).resolves.toBeNull()
  })

  it('leaves a missing database on a running server to `weave migrate`, which creates it', async () => {
    const missing = new URL(TEST_DATABASE_URL)
    missing.pathname = `/weave_missing_${randomBytes(4).toString('hex')}`
    await expect(
      findUnreachableDependency({ postgres: { url: missing.toString(), role: 'migrate' } }),
    ).resolves.toBeNull()
  })
})

// Each spawns the CLI, whose start-up alone (loading the API) is slow on a loaded machine.
describe('weave commands whose services are down', { timeout: 90_000 }, () => {
  it('`weave start` with Postgres refused prints one line naming it, no stack, and exits 2', async () => {
    const port = await closedPort()
    const url = `postgres://postgres:secret@127.0.0.1:${port}/weave`
    const run = await runCli('start', {
      WEAVE_MIGRATE_DATABASE_URL: url,
      WEAVE_DATABASE_URL: url,
      REDIS_URL: TEST_REDIS_URL,
      PORT: String(await closedPort()),
    })
    expect(run.code).toBe(2)
    const lines = run.stderr.split('\n').filter((line) => line !== '')
    expect(lines).toEqual([
      `weave start: cannot reach Postgres at postgres://postgres@127.0.0.1:${port}/weave ` +
        "(ECONNREFUSED): is it running? Set WEAVE_MIGRATE_DATABASE_URL to the tables' owner's URL.",
    ])
    expect(run.stdout).not.toContain('secret')
  })

  it('`weave api` with Redis refused prints one line naming it instead of reconnect logs, and exits 2', async () => {
    const port = await closedPort()
    const run = await runCli('api', {
      WEAVE_DATABASE_URL: TEST_DATABASE_URL,
      REDIS_URL: `redis://127.0.0.1:${port}`,
      PORT: String(await closedPort()),
    })
    expect(run.code).toBe(2)
    expect(run.stderr.split('\n').filter((line) => line !== '')).toEqual([
      `weave api: cannot reach Redis at redis://127.0.0.1:${port} (ECONNREFUSED): is it running? ` +
        'Set REDIS_URL.',
    ])
    expect(run.stdout).toBe('')
  })
})
