// The one place the integration and end-to-end tests learn where PostgreSQL and Redis are. The
// global setup (test/setup/test-services.ts) sets these variables when it runs the services in
// containers, before any test worker starts, so every test file and every process it spawns sees
// the same servers.

/** The local PostgreSQL the tests use unless told otherwise: login `postgres`, trusted. */
export const LOCAL_TEST_DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/postgres'

/** The local Redis the tests use unless told otherwise. */
export const LOCAL_TEST_REDIS_URL = 'redis://127.0.0.1:6379'

/**
 * A superuser's URL of the test server's `postgres` database (`WEAVE_TEST_DATABASE_URL`): each
 * test file creates, and drops, databases of its own on that server.
 */
export const TEST_DATABASE_URL = process.env.WEAVE_TEST_DATABASE_URL || LOCAL_TEST_DATABASE_URL

/** The Redis of the tests (`WEAVE_TEST_REDIS_URL`); each file uses a queue prefix of its own. */
export const TEST_REDIS_URL = process.env.WEAVE_TEST_REDIS_URL || LOCAL_TEST_REDIS_URL

/** Whether the global setup started PostgreSQL and Redis in containers for this run. */
export const isOnServiceContainers = process.env.WEAVE_TEST_SERVICES === 'containers'
