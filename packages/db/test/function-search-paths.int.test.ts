import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type TestDatabase, createTestDatabase } from './test-database.js'

// A function that runs with its owner's privileges (SECURITY DEFINER) must not resolve a name
// through a search path its caller chose: each sets its own. The row triggers every run fires
// run as whoever wrote the row and inherit the caller's path (migration 0047): setting a path per
// call cost 2.3% of a run's Postgres instructions. The notify trigger names its table with the
// schema, so a table of the same name earlier on the writer's path is not read
// (run-event-watches.int.test.ts writes through a shadowing temporary table).

let t: TestDatabase

beforeAll(async () => {
  t = await createTestDatabase('weave_db_search_paths')
})

afterAll(async () => {
  await t?.drop()
})

interface FunctionSettings {
  name: string
  definer: boolean
  settings: string[] | null
}

async function publicFunctions(): Promise<FunctionSettings[]> {
  const { rows } = await t.owner.query<FunctionSettings>(
    `select p.proname as name, p.prosecdef as definer, p.proconfig as settings
     from pg_proc p join pg_namespace n on n.oid = p.pronamespace
     where n.nspname = 'public'
     order by p.proname`,
  )
  return rows
}

describe('function search paths', () => {
  it('gives every SECURITY DEFINER function a path of its own: pg_catalog, then pg_temp', async () => {
    const definers = (await publicFunctions()).filter((f) => f.definer)
    expect(definers.length).toBeGreaterThan(10)
    for (const f of definers) {
      expect({ name: f.name, settings: f.settings }).toEqual({
        name: f.name,
        settings: ['search_path=pg_catalog, pg_temp'],
      })
    }
  })

  it('lets the row triggers every run fires run with their caller’s privileges and path', async () => {
    const functions = await publicFunctions()
    for (const name of ['weave_notify_run_event', 'weave_run_row_rules']) {
      expect(functions.find((f) => f.name === name)).toEqual({
        name,
        definer: false,
        settings: null,
      })
    }
  })
})
