import { request } from 'node:http'
import { connect } from 'node:net'
import { LOCAL_TEST_DATABASE_URL, LOCAL_TEST_REDIS_URL } from '../support/service-urls.js'

/** Where the integration and end-to-end tests of one run find PostgreSQL and Redis. */
export type TestServicesPlan =
  | { kind: 'local'; databaseUrl: string; redisUrl: string }
  /** Both in containers; `why` says what chose them, for the run's log. */
  | { kind: 'containers'; why: string }

/** The tests cannot have PostgreSQL and Redis: the message names what is missing and the fixes. */
export class TestServicesError extends Error {
  override name = 'TestServicesError'
}

/** What {@link chooseTestServices} reads and asks; the probes are replaceable for its tests. */
export interface ChooseTestServicesOptions {
  /** `WEAVE_TEST_CONTAINERS`, `WEAVE_TEST_DATABASE_URL`, `WEAVE_TEST_REDIS_URL`, `DOCKER_HOST` */
  env: NodeJS.ProcessEnv
  /** Whether something accepts a TCP connection at the URL's host and port. */
  isAnswering?: (url: string) => Promise<boolean>
  /** Why no Docker engine can be used, or undefined when one answers. */
  whyNoDocker?: (env: NodeJS.ProcessEnv) => Promise<string | undefined>
}

/**
 * Decides between the local services and containers. `WEAVE_TEST_CONTAINERS=1` asks for
 * containers, `0` for the local services without probing; unset, the local services are used
 * when both answer, and containers when one does not and a Docker engine answers.
 * @throws TestServicesError when the choice cannot be served, before any test runs
 */
export async function chooseTestServices(o: ChooseTestServicesOptions): Promise<TestServicesPlan> {
  const isAnswering = o.isAnswering ?? isTcpAnswering
  const whyNoDocker = o.whyNoDocker ?? whyNoDockerEngine
  const mode = o.env.WEAVE_TEST_CONTAINERS?.trim() ?? ''
  const databaseUrl = o.env.WEAVE_TEST_DATABASE_URL || LOCAL_TEST_DATABASE_URL
  const redisUrl = o.env.WEAVE_TEST_REDIS_URL || LOCAL_TEST_REDIS_URL
  const local = { kind: 'local', databaseUrl, redisUrl } as const
  const localServices = `PostgreSQL at ${hostPort(databaseUrl)} and Redis at ${hostPort(redisUrl)}`

  if (mode === '0') return local
  if (mode === '1') {
    const why = await whyNoDocker(o.env)
    if (why === undefined) return { kind: 'containers', why: 'WEAVE_TEST_CONTAINERS=1' }
    throw new TestServicesError(
      `WEAVE_TEST_CONTAINERS=1 asks for PostgreSQL and Redis in containers, but no Docker engine ` +
        `answers (${why}): start Docker, or unset WEAVE_TEST_CONTAINERS to use the local ` +
        `services (${localServices}).`,
    )
  }
  if (mode !== '') {
    throw new TestServicesError(
      `WEAVE_TEST_CONTAINERS is "${mode}": set it to 1 for PostgreSQL and Redis in containers, ` +
        `to 0 for the local services, or leave it unset to use containers only when the local ` +
        `services do not answer.`,
    )
  }

  const [isPostgresUp, isRedisUp] = await Promise.all([
    isAnswering(databaseUrl),
    isAnswering(redisUrl),
  ])
  if (isPostgresUp && isRedisUp) return local
  const silent = [
    isPostgresUp ? undefined : `PostgreSQL at ${hostPort(databaseUrl)}`,
    isRedisUp ? undefined : `Redis at ${hostPort(redisUrl)}`,
  ].filter((service) => service !== undefined)
  const notAnswering = `${silent.join(' and ')} ${silent.length > 1 ? 'do' : 'does'} not answer`
  const why = await whyNoDocker(o.env)
  if (why === undefined) return { kind: 'containers', why: notAnswering }
  throw new TestServicesError(
    `The integration and end-to-end tests need PostgreSQL and Redis, but ${notAnswering}, and ` +
      `no Docker engine answers to run them in containers (${why}): start the local ` +
      `services (or set WEAVE_TEST_DATABASE_URL and WEAVE_TEST_REDIS_URL to others), or start ` +
      `Docker.`,
  )
}

/** `host:port` of a service URL, never its credentials. */
function hostPort(url: string): string {
  const parsed = new URL(url)
  const port = parsed.port || (parsed.protocol === 'redis:' ? '6379' : '5432')
  return `${parsed.hostname}:${port}`
}

/** Whether a TCP connection to the URL's host and port opens within a second. */
export async function isTcpAnswering(url: string): Promise<boolean> {
  const [host, port] = splitHostPort(hostPort(url))
  return new Promise((resolve) => {
    const socket = connect({ host, port, timeout: 1_000 })
    const settle = (isUp: boolean) => {
      socket.destroy()
      resolve(isUp)
    }
    socket.once('connect', () => settle(true))
    socket.once('timeout', () => settle(false))
    socket.once('error', () => settle(false))
  })
}

function splitHostPort(address: string): [string, number] {
  const at = address.lastIndexOf(':')
  // An IPv6 hostname comes bracketed out of URL.hostname; net.connect wants it bare.
  return [address.slice(0, at).replace(/^\[(.*)\]$/, '$1'), Number(address.slice(at + 1))]
}

/**
 * Why no Docker engine can run the containers, or undefined when one answers. A `DOCKER_HOST`
 * that is set must answer itself (testcontainers would otherwise fall back to another engine the
 * user did not name); then testcontainers looks for a runtime as it will to start them (its
 * `~/.testcontainers.properties`, `DOCKER_HOST`, the usual sockets). testcontainers is loaded only
 * here, so runs on the local services never load it.
 */
export async function whyNoDockerEngine(env: NodeJS.ProcessEnv): Promise<string | undefined> {
  if (env.DOCKER_HOST) {
    const silence = await dockerHostSilence(env.DOCKER_HOST)
    if (silence !== undefined) return `DOCKER_HOST=${env.DOCKER_HOST}: ${silence}`
  }
  try {
    const { getContainerRuntimeClient } = await import('testcontainers')
    await getContainerRuntimeClient()
    return undefined
  } catch (err) {
    const where = env.DOCKER_HOST
      ? `DOCKER_HOST=${env.DOCKER_HOST}`
      : 'DOCKER_HOST is unset and no socket such as /var/run/docker.sock answers'
    return `${where}; testcontainers: ${err instanceof Error ? err.message : String(err)}`
  }
}

/**
 * Asks a `unix://` or `tcp://` Docker host for `/_ping`: any HTTP answer means an engine is
 * there (one that wants TLS answers a plain request with 400); a refused or absent socket, or
 * silence for two seconds, is what is returned. Other schemes are left to testcontainers.
 */
async function dockerHostSilence(dockerHost: string): Promise<string | undefined> {
  let url: URL
  try {
    url = new URL(dockerHost)
  } catch {
    return 'not a URL'
  }
  const target =
    url.protocol === 'unix:'
      ? { socketPath: url.pathname }
      : url.protocol === 'tcp:'
        ? { host: url.hostname, port: Number(url.port || 2375) }
        : undefined
  if (target === undefined) return undefined
  return new Promise((resolve) => {
    const ping = request({ ...target, path: '/_ping', timeout: 2_000 }, (answer) => {
      answer.resume()
      resolve(undefined)
    })
    ping.once('timeout', () => ping.destroy(new Error('no answer within 2 s')))
    ping.once('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message))
    ping.end()
  })
}
