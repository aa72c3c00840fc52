import {
  chooseTestServices,
  TestServicesError,
  type TestServicesPlan,
} from './choose-test-services.js'
import { startServiceContainers } from './service-containers.js'

// Vitest's global setup of the integration and end-to-end projects: before any test worker
// starts, it decides where PostgreSQL and Redis are (chooseTestServices) and, for containers,
// starts them and points WEAVE_TEST_DATABASE_URL and WEAVE_TEST_REDIS_URL at them. Workers are
// spawned with this process's environment, so test/support/service-urls.ts reads them there.

interface ProvidedServices {
  stop(): Promise<void>
}

// Both projects run this setup, one after the other, in the same process: the first call decides
// and starts, the second reuses it, and the first teardown stops the containers.
const PROVIDED = Symbol.for('weave.test-services')
type WithProvided = typeof globalThis & { [PROVIDED]?: Promise<ProvidedServices> }

/** Provides PostgreSQL and Redis to the run; returns the teardown that stops what it started. */
export default async function setup(): Promise<() => Promise<void>> {
  const holder = globalThis as WithProvided
  holder[PROVIDED] ??= chooseTestServices({ env: process.env }).then(provide)
  try {
    const provided = await holder[PROVIDED]
    return () => provided.stop()
  } catch (error) {
    // Vitest would report a failed setup as "No test files found" with the projects' globs ahead
    // of the reason; the reason alone is what the developer needs.
    if (!(error instanceof TestServicesError)) throw error
    process.stderr.write(`\n${error.message}\n\n`)
    process.exit(1)
  }
}

async function provide(plan: TestServicesPlan): Promise<ProvidedServices> {
  if (plan.kind === 'local') {
    process.env.WEAVE_TEST_SERVICES = 'local'
    return { stop: async () => undefined }
  }
  console.log(`Starting PostgreSQL 15 and Redis 7 in containers (${plan.why}).`)
  const containers = await startServiceContainers()
  process.env.WEAVE_TEST_DATABASE_URL = containers.databaseUrl
  process.env.WEAVE_TEST_REDIS_URL = containers.redisUrl
  process.env.WEAVE_TEST_SERVICES = 'containers'
  return containers
}
