/** PostgreSQL 15 and Redis 7 running in containers for one test run. */
export interface ServiceContainers {
  /** The superuser `postgres` on database `postgres`, trusted without a password. */
  databaseUrl: string
  redisUrl: string
  /** Stops and removes both containers; safe to call twice. */
  stop(): Promise<void>
}

/**
 * Starts `postgres:15-alpine` and `redis:7-alpine` with testcontainers and waits until both
 * answer. Should the run be killed before `stop`, testcontainers' reaper removes them.
 * @throws Error from testcontainers when an image cannot be pulled or a container does not start
 */
export async function startServiceContainers(): Promise<ServiceContainers> {
  const [{ PostgreSqlContainer }, { RedisContainer }] = await Promise.all([
    import('@testcontainers/postgresql'),
    import('@testcontainers/redis'),
  ])
  const [postgres, redis] = await Promise.allSettled([
    // Trust, as the local server of the tests does: tests connect as logins they create (the
    // runtime login among them) without passwords. fsync off: the data lives for one run.
    new PostgreSqlContainer('postgres:15-alpine')
      .withUsername('postgres')
      .withDatabase('postgres')
      .withEnvironment({ POSTGRES_HOST_AUTH_METHOD: 'trust' })
      .withCommand(['postgres', '-c', 'fsync=off'])
      .start(),
    new RedisContainer('redis:7-alpine').start(),
  ])
  if (postgres.status === 'rejected' || redis.status === 'rejected') {
    for (const started of [postgres, redis]) {
      if (started.status === 'fulfilled') await started.value.stop()
    }
    throw postgres.status === 'rejected' ? postgres.reason : (redis as PromiseRejectedResult).reason
  }
  const host = postgres.value.getHost()
  let stopping: Promise<void> | undefined
  return {
    databaseUrl: `postgres://postgres@${host}:${postgres.value.getPort()}/postgres`,
    redisUrl: `redis://${redis.value.getHost()}:${redis.value.getPort()}`,
    stop() {
      stopping ??= Promise.all([postgres.value.stop(), redis.value.stop()]).then(() => undefined)
      return stopping
    },
  }
}
