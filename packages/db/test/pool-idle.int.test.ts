import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createDb, type Database, DEFAULT_IDLE_TIMEOUT_MS } from '@weave/db'
import { waitUntil } from '../../../test/support/wait-until.js'
import { type TestDatabase, createTestDatabase } from './test-database.js'

// A new backend compiles Weave's functions and loads its catalogs again, so the pool keeps idle
// connections through the lulls between bursts instead of pg's 10 s.

let t: TestDatabase

beforeAll(async () => {
  t = await createTestDatabase('weave_db_pool_idle')
})

afterAll(async () => {
  await t?.drop()
})

async function backendAlive(pid: number): Promise<boolean> {
  const { rows } = await t.owner.query<{ alive: boolean }>(
    'select exists (select 1 from pg_stat_activity where pid = $1) as alive',
    [pid],
  )
  return rows[0]!.alive
}

async function backendPid(database: Database): Promise<number> {
  const { rows } = await database.pool.query<{ pid: number }>('select pg_backend_pid() as pid')
  return rows[0]!.pid
}

describe('createDb: idle connections', () => {
  it('keeps an idle connection open for minutes by default, not pg’s 10 s', async () => {
    const database = createDb({ connectionString: t.url, max: 1 })
    try {
      expect(DEFAULT_IDLE_TIMEOUT_MS).toBeGreaterThanOrEqual(60_000)
      expect(database.pool.options.idleTimeoutMillis).toBe(DEFAULT_IDLE_TIMEOUT_MS)
      const pid = await backendPid(database)
      await new Promise((resolve) => setTimeout(resolve, 300))
      expect(database.pool.idleCount).toBe(1)
      expect(await backendAlive(pid)).toBe(true)
    } finally {
      await database.close()
    }
  })

  it('closes a connection idle for longer than idleTimeoutMs, its backend included', async () => {
    const database = createDb({ connectionString: t.url, max: 1, idleTimeoutMs: 100 })
    try {
      const pid = await backendPid(database)
      await waitUntil(
        async () => database.pool.totalCount === 0 && !(await backendAlive(pid)),
        5_000,
        'the idle connection and its backend to close',
      )
    } finally {
      await database.close()
    }
  })
})
