import { randomUUID } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  appendRunEvent,
  listenForRunEvents,
  watchRunEvents,
  withTenant,
  type RunEventListener,
} from '@weave/db'
import { type TestDatabase, createTestDatabase, randomTenant, seedRunIn } from './test-database.js'

let t: TestDatabase

beforeAll(async () => {
  t = await createTestDatabase('weave_db_listen')
})

afterAll(async () => {
  await t?.drop()
})

/** Has the run's events announced: only a watched run's are (run-event-watches.int.test.ts). */
async function watch(tenant: string, runId: string): Promise<void> {
  await withTenant(t.app, tenant, (tx) =>
    watchRunEvents(tx, runId, { watcher: randomUUID(), ttlMs: 60_000 }),
  )
}

/** Resolves with the next run id announced that satisfies `predicate`. */
function nextAnnouncement(
  announced: string[],
  predicate: (runId: string) => boolean,
): Promise<string> {
  return new Promise((resolve, reject) => {
    const deadline = Date.now() + 10_000
    const check = () => {
      const found = announced.find(predicate)
      if (found) resolve(found)
      else if (Date.now() > deadline) reject(new Error('no announcement within 10 s'))
      else setTimeout(check, 20)
    }
    check()
  })
}

describe('run event announcements', () => {
  it('announces the run id of a committed event, never of a rolled-back one', async () => {
    const announced: string[] = []
    const listener = listenForRunEvents({
      connectionString: t.url,
      onEvent: (runId) => announced.push(runId),
    })
    try {
      await listener.listening
      const tenant = randomTenant()
      const [kept, rolledBack] = [await seedRunIn(t.app, tenant), await seedRunIn(t.app, tenant)]
      await watch(tenant, kept.id)
      await watch(tenant, rolledBack.id)
      await withTenant(t.app, tenant, async (tx) => {
        await appendRunEvent(tx, rolledBack.id, 'run.started', {})
        throw new Error('roll back')
      }).catch(() => undefined)
      await withTenant(t.app, tenant, (tx) => appendRunEvent(tx, kept.id, 'run.started', {}))
      expect(await nextAnnouncement(announced, (id) => id === kept.id)).toBe(kept.id)
      expect(announced).not.toContain(rolledBack.id)
    } finally {
      await listener.close()
    }
  })

  it('reconnects after its connection is killed and says it listens again', async () => {
    const announced: string[] = []
    let listens = 0
    const errors: Error[] = []
    const listener: RunEventListener = listenForRunEvents({
      connectionString: t.url,
      reconnectDelayMs: 50,
      onEvent: (runId) => announced.push(runId),
      onListening: () => (listens += 1),
      onError: (err) => errors.push(err),
    })
    try {
      await listener.listening
      await t.owner.query(
        `select pg_terminate_backend(pid) from pg_stat_activity
         where datname = current_database() and query = 'LISTEN weave_run_events'`,
      )
      const deadline = Date.now() + 10_000
      while (listens < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20))
      expect(listens).toBe(2)
      expect(errors.length).toBeGreaterThan(0)
      const tenant = randomTenant()
      const run = await seedRunIn(t.app, tenant)
      await watch(tenant, run.id)
      await withTenant(t.app, tenant, (tx) => appendRunEvent(tx, run.id, 'run.started', {}))
      expect(await nextAnnouncement(announced, (id) => id === run.id)).toBe(run.id)
    } finally {
      await listener.close()
    }
  })
})
