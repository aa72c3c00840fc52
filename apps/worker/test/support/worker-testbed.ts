import {
  createDb,
  createRun,
  getRun,
  migrateDatabase,
  registerGraphVersion,
  withTenant,
  type Database,
  type RunRow,
} from '@weave/db'
import { redisConnection } from '@weave/queue'
import { pino } from 'pino'
import { startWorker, type RunningWorker, type WorkerOptions } from '../../src/index.js'
import { TEST_REDIS_URL, testDatabase } from './test-services.js'
import { obliterateQueues } from '../../../../test/support/queue-cleanup.js'

/** A migrated database of its own and a worker on a queue prefix of its own, for one test file. */
export interface WorkerTestbed {
  database: Database
  worker: RunningWorker
  /** The tenant the testbed's runs belong to. */
  tenant: string
  /** Registers `spec` as graph `name`, creates a run of it and enqueues the run's job. */
  start(name: string, spec: unknown, input?: Record<string, unknown>): Promise<string>
  runOf(id: string): Promise<RunRow | null>
  /** Empties the queues, stops the worker and drops the database. */
  close(): Promise<void>
}

export async function startWorkerTestbed(
  prefix: string,
  options: Partial<Omit<WorkerOptions, 'database' | 'connection' | 'prefix'>> = {},
): Promise<WorkerTestbed> {
  const testDb = testDatabase(`weave_${prefix}`)
  const tenant = `t-${testDb.suffix}`
  await migrateDatabase({ connectionString: testDb.url })
  const database = createDb({ connectionString: testDb.url, max: 12 })
  const worker = startWorker({
    log: pino({ level: 'silent' }),
    reconcileIntervalMs: 0,
    retentionIntervalMs: 0,
    ...options,
    database,
    connection: redisConnection(TEST_REDIS_URL),
    prefix: `${prefix}-${testDb.suffix}`,
  })
  return {
    database,
    worker,
    tenant,
    async start(name, spec, input = {}) {
      const run = await withTenant(database, tenant, async (tx) => {
        const v = await registerGraphVersion(tx, { name, spec, createdBy: 'author' })
        return (
          await createRun(tx, {
            graphName: name,
            graphVersion: v.version,
            input: input as never,
            createdBy: 'starter',
          })
        ).run
      })
      await worker.queues.enqueue('run', { runId: run.id, tenant })
      return run.id
    },
    runOf: (id) => withTenant(database, tenant, (tx) => getRun(tx, id)),
    async close() {
      try {
        await obliterateQueues(worker.queues)
        await worker.close()
        await database.close()
      } finally {
        await testDb.drop()
      }
    },
  }
}
