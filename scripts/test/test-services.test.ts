import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { createServer, type Server } from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import {
  chooseTestServices,
  TestServicesError,
  type ChooseTestServicesOptions,
} from '../../test/setup/choose-test-services.js'

// How the integration and end-to-end tiers get PostgreSQL and Redis (test/setup): the local
// services, or containers when asked for or when the local ones do not answer. Docker is never
// needed here: its absence is made certain with a DOCKER_HOST nothing listens on.

const root = path.resolve(import.meta.dirname, '../..')
const scratch = mkdtempSync(path.join(tmpdir(), 'weave-test-services-'))
const DEAD_DOCKER_HOST = `unix://${path.join(scratch, 'docker.sock')}`
const listening: Server[] = []

afterAll(async () => {
  await Promise.all(listening.map((server) => new Promise((done) => server.close(done))))
  rmSync(scratch, { recursive: true, force: true })
})

/** A port something accepts connections on, as a local service does. */
async function answeringPort(): Promise<number> {
  const server = createServer((socket) => socket.destroy())
  listening.push(server)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return (server.address() as { port: number }).port
}

/** A port nothing listens on: the kernel handed it out a moment ago and it was closed again. */
async function closedPort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  await new Promise((done) => server.close(done))
  return port
}

/** Probes that record what they were asked and must not decide the case under test. */
function recordingProbes(answer: { isUp?: boolean; dockerSilence?: string }) {
  const asked: string[] = []
  const probes: Pick<ChooseTestServicesOptions, 'isAnswering' | 'whyNoDocker'> = {
    isAnswering: async (url) => {
      asked.push(`tcp ${url}`)
      return answer.isUp ?? true
    },
    whyNoDocker: async () => {
      asked.push('docker')
      return answer.dockerSilence
    },
  }
  return { asked, probes }
}

describe('the choice of PostgreSQL and Redis for the service tiers', () => {
  it('stops with WEAVE_TEST_CONTAINERS=1 when no Docker engine answers, naming it and the fixes', async () => {
    const choice = chooseTestServices({
      env: { WEAVE_TEST_CONTAINERS: '1', DOCKER_HOST: DEAD_DOCKER_HOST },
    })
    await expect(choice).rejects.toBeInstanceOf(TestServicesError)
    await expect(choice).rejects.toThrow(
      'WEAVE_TEST_CONTAINERS=1 asks for PostgreSQL and Redis in containers, but no Docker engine answers',
    )
    await expect(choice).rejects.toThrow(`DOCKER_HOST=${DEAD_DOCKER_HOST}: ENOENT`)
    await expect(choice).rejects.toThrow(
      'start Docker, or unset WEAVE_TEST_CONTAINERS to use the local services ' +
        '(PostgreSQL at 127.0.0.1:5432 and Redis at 127.0.0.1:6379)',
    )
  })

  it('stops when the local services are silent and no Docker engine answers, naming both ways out', async () => {
    const [postgresPort, redisPort] = [await closedPort(), await closedPort()]
    const choice = chooseTestServices({
      env: {
        WEAVE_TEST_DATABASE_URL: `postgres://postgres:secret@127.0.0.1:${postgresPort}/postgres`,
        WEAVE_TEST_REDIS_URL: `redis://127.0.0.1:${redisPort}`,
        DOCKER_HOST: DEAD_DOCKER_HOST,
      },
    })
    await expect(choice).rejects.toThrow(
      `PostgreSQL at 127.0.0.1:${postgresPort} and Redis at 127.0.0.1:${redisPort} do not answer, ` +
        'and no Docker engine answers to run them in containers',
    )
    await expect(choice).rejects.toThrow(
      'start the local services (or set WEAVE_TEST_DATABASE_URL and WEAVE_TEST_REDIS_URL to ' +
        'others), or start Docker',
    )
    // The URL's password stays out of the message.
    await expect(choice).rejects.not.toThrow('secret')
  })

  it('uses the local services when both answer, without asking for Docker', async () => {
    const env = {
      WEAVE_TEST_DATABASE_URL: `postgres://postgres@127.0.0.1:${await answeringPort()}/postgres`,
      WEAVE_TEST_REDIS_URL: `redis://127.0.0.1:${await answeringPort()}`,
      DOCKER_HOST: DEAD_DOCKER_HOST,
    }
    await expect(chooseTestServices({ env })).resolves.toEqual({
      kind: 'local',
      databaseUrl: env.WEAVE_TEST_DATABASE_URL,
      redisUrl: env.WEAVE_TEST_REDIS_URL,
    })
  })

  it('runs both in containers when one local service is silent and Docker answers', async () => {
    const { asked, probes } = recordingProbes({ isUp: false })
    const choice = await chooseTestServices({
      env: { WEAVE_TEST_REDIS_URL: `redis://127.0.0.1:${await closedPort()}` },
      ...probes,
      isAnswering: async (url) => url.startsWith('postgres:'),
    })
    expect(choice).toEqual({
      kind: 'containers',
      why: expect.stringMatching(/^Redis at .* does not answer$/),
    })
    expect(asked).toEqual(['docker'])
  })

  it('takes WEAVE_TEST_CONTAINERS=0 as the local services, probing nothing', async () => {
    const { asked, probes } = recordingProbes({ isUp: false, dockerSilence: 'none here' })
    await expect(
      chooseTestServices({ env: { WEAVE_TEST_CONTAINERS: '0' }, ...probes }),
    ).resolves.toMatchObject({
      kind: 'local',
      databaseUrl: 'postgres://postgres@127.0.0.1:5432/postgres',
    })
    expect(asked).toEqual([])
  })

  it('refuses any other WEAVE_TEST_CONTAINERS, naming the values it takes', async () => {
    const { probes } = recordingProbes({})
    await expect(
      chooseTestServices({ env: { WEAVE_TEST_CONTAINERS: 'yes' }, ...probes }),
    ).rejects.toThrow('WEAVE_TEST_CONTAINERS is "yes": set it to 1')
  })
})

describe('a run of the service tiers with WEAVE_TEST_CONTAINERS=1 and no Docker engine', () => {
  it('stops in the global setup, before any test file runs, with the message', async () => {
    // Vitest's own variables would make the child think it runs inside a test worker.
    const env = Object.fromEntries(
      Object.entries(process.env).filter(([name]) => !/^VITEST|^TEST$/.test(name)),
    )
    const child = spawn(
      process.execPath,
      [
        path.join(root, 'node_modules/vitest/vitest.mjs'),
        'run',
        '--project',
        'integration',
        'packages/db/test/database-role.int.test.ts',
      ],
      {
        cwd: root,
        env: { ...env, WEAVE_TEST_CONTAINERS: '1', DOCKER_HOST: DEAD_DOCKER_HOST, NO_COLOR: '1' },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    )
    let output = ''
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()))
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()))
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve))
    expect(output).toContain(
      'WEAVE_TEST_CONTAINERS=1 asks for PostgreSQL and Redis in containers, but no Docker engine answers',
    )
    expect(output).not.toMatch(/Tests\s+\d+ passed/)
    expect(code).toBe(1)
  }, 60_000)
})
