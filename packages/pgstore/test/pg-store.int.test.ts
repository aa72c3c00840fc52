import { randomBytes, randomUUID } from 'node:crypto'
import { PgStore, migrate } from '@weave/pgstore'
import pg from 'pg'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { recordStatements } from '../../../test/support/statement-recorder.js'
import { storeContract } from '../../../test/support/store-contract.js'
import { kvTableDdl } from '../src/migrate.js'
import { kvStatements } from '../src/statements.js'
import { createTempDatabase, type TempDatabase } from './temp-database.js'

let db: TempDatabase
let pool: pg.Pool

beforeAll(async () => {
  db = await createTempDatabase()
  pool = new pg.Pool({ connectionString: db.url })
  await migrate(pool)
})

afterAll(async () => {
  // pool.end() resolves before its clients' connections have closed; the forced drop then
  // terminates them, which an idle client reports as an error on its pool.
  pool?.on('error', () => undefined)
  await pool?.end()
  await db?.drop()
})

async function truncate(): Promise<void> {
  await pool.query('TRUNCATE weave_kv')
}

/** Polls `check` until it returns true, failing after `ms`. */
async function until(check: () => Promise<boolean>, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${ms} ms`)
    await new Promise((r) => setImmediate(r))
  }
}

/** A pool over the test database that records the text of every statement its clients run. */
function recordingPool(max = 10): { pool: pg.Pool; statements: string[] } {
  const statements: string[] = []
  const recorded = new pg.Pool({ connectionString: db.url, max })
  recordStatements(recorded, statements)
  return { pool: recorded, statements }
}

type PlanNode = { 'Node Type': string; 'Index Name'?: string; Plans?: PlanNode[] } & Record<
  string,
  unknown
>

function planNodes(node: PlanNode): PlanNode[] {
  return [node, ...(node.Plans ?? []).flatMap(planNodes)]
}

storeContract('PgStore', async () => ({ store: new PgStore({ pool }), cleanup: truncate }))

storeContract('PgStore with a tenant prefix', async () => ({
  store: new PgStore({ pool, prefix: `tenant:${randomUUID()}:` }),
}))

storeContract('PgStore bound to a tenant', async () => ({
  store: new PgStore({ pool, tenant: `t-${randomUUID()}` }),
}))

describe('PgStore', () => {
  beforeEach(truncate)

  describe('prefix', () => {
    it('never lets prefix "a" + ns "b:c" meet prefix "a:b" + ns "c"', async () => {
      const a = new PgStore({ pool, prefix: 'a' })
      const ab = new PgStore({ pool, prefix: 'a:b' })
      await a.put('b:c', 'k', 'from a')
      await ab.put('c', 'k', 'from a:b')
      expect(await a.get('b:c', 'k')).toBe('from a')
      expect(await ab.get('c', 'k')).toBe('from a:b')
      expect(await a.list('b:c', '')).toEqual(['k'])
      expect(await ab.list('c', '')).toEqual(['k'])
      await a.delete('b:c', 'k')
      expect(await ab.get('c', 'k')).toBe('from a:b')
      const { rows } = await pool.query<{ ns: string }>('SELECT ns FROM weave_kv')
      expect(rows.map((r) => r.ns)).toEqual(['3:a:bc'])
    })

    it('keeps tenants, and the unprefixed store, out of each other’s keys', async () => {
      const acme = new PgStore({ pool, prefix: 'tenant:acme:' })
      const acm = new PgStore({ pool, prefix: 'tenant:acm' })
      const bare = new PgStore({ pool })
      await acme.put('checkpoint:g', 'run-1', 'acme')
      await acme.tx(async (t) => t.putMany!('checkpoint:g', [['run-2', 'acme']]))
      expect(await acm.get('e:checkpoint:g', 'run-1')).toBeUndefined()
      expect(await acm.list('e:checkpoint:g', '')).toEqual([])
      expect(await bare.get('tenant:acme:checkpoint:g', 'run-1')).toBeUndefined()
      expect(await bare.get('12:tenant:acme:checkpoint:g', 'run-1')).toBeUndefined()
      expect(await bare.list('12:tenant:acme:checkpoint:g', '')).toEqual([])
      await acm.tx(async (t) => {
        expect(await t.list('e:checkpoint:g', '')).toEqual([])
      })
      expect(await acme.list('checkpoint:g', '')).toEqual(['run-1', 'run-2'])
    })
  })

  it('lists in code point order in a database whose default collation is not C', async (ctx) => {
    const attempts = [
      `TEMPLATE template0 LC_COLLATE 'en_US.utf8' LC_CTYPE 'en_US.utf8'`,
      `TEMPLATE template0 LOCALE_PROVIDER icu ICU_LOCALE 'en-US'`,
    ]
    let localeDb: TempDatabase | undefined
    const failures: string[] = []
    for (const options of attempts) {
      localeDb = await createTempDatabase(options).catch((err: Error) => {
        failures.push(err.message)
        return undefined
      })
      if (localeDb) break
    }
    if (!localeDb) return ctx.skip(`no en_US collation on this server: ${failures.join('; ')}`)
    const localePool = new pg.Pool({ connectionString: localeDb.url })
    try {
      await migrate(localePool)
      const keys = ['a', 'B', 'é', 'z', '\u{1F600}', '\uFFFD', 'ab', 'a-b', 'A']
      const byCodePoint = ['A', 'B', 'a', 'a-b', 'ab', 'z', 'é', '\uFFFD', '\u{1F600}']
      const store = new PgStore({ pool: localePool })
      await store.putMany(
        'ns',
        keys.map((k) => [k, 'v'] as const),
      )
      const { rows } = await localePool.query<{ keys: string[] }>(
        `SELECT array_agg(key COLLATE "default" ORDER BY key COLLATE "default") AS keys FROM weave_kv`,
      )
      expect(rows[0]!.keys).not.toEqual(byCodePoint)
      expect(await store.list('ns', '')).toEqual(byCodePoint)
      expect(await store.list('ns', 'a')).toEqual(['a', 'a-b', 'ab'])
    } finally {
      await localePool.end()
      await localeDb.drop()
    }
  })

  describe('putMany', () => {
    it('sends one statement, outside a transaction and inside one', async () => {
      const { pool: recorded, statements } = recordingPool()
      try {
        const store = new PgStore({ pool: recorded })
        const entries = Array.from({ length: 200 }, (_, i) => [`k${i}`, `v${i}`] as const)
        await store.putMany('ns', entries)
        expect(statements).toHaveLength(1)
        expect(statements[0]).toContain('unnest')
        statements.length = 0
        await store.tx(async (t) => t.putMany!('ns', [['x', '1']]))
        expect(statements.map((s) => s.trim().split(/\s/)[0])).toEqual([
          'BEGIN',
          'INSERT',
          'COMMIT',
        ])
        expect(await store.list('ns', 'k1')).toHaveLength(111)
      } finally {
        await recorded.end()
      }
    })

    it('rolls back every entry when one is refused by the database', async () => {
      const store = new PgStore({ pool })
      const hugeKey = randomBytes(12_000).toString('base64')
      await expect(
        store.putMany('ns', [
          ['fine', 'v'],
          [hugeKey, 'v'],
        ]),
      ).rejects.toThrow(/index row/)
      expect(await store.list('ns', '')).toEqual([])
    })
  })

  describe('tx', () => {
    it('really rolls back, as another connection sees, and returns the client each time', async () => {
      const { pool: single } = recordingPool(1)
      try {
        const store = new PgStore({ pool: single })
        for (let i = 0; i < 3; i++) {
          await expect(
            store.tx(async (t) => {
              await t.put('ns', `k${i}`, 'v')
              throw new Error('no')
            }),
          ).rejects.toThrow('no')
          expect(single.idleCount).toBe(single.totalCount)
        }
        const { rows } = await pool.query<{ n: number }>('SELECT count(*)::int AS n FROM weave_kv')
        expect(rows[0]!.n).toBe(0)
        await store.tx(async (t) => t.put('ns', 'committed', 'v'))
        expect(single.idleCount).toBe(1)
        expect(await new PgStore({ pool }).list('ns', '')).toEqual(['committed'])
      } finally {
        await single.end()
      }
    })

    it('destroys the client when its connection dies, still rejecting with fn’s error', async () => {
      const single = new pg.Pool({ connectionString: db.url, max: 1 })
      const pids: number[] = []
      single.on('connect', (client) => {
        pids.push((client as unknown as { processID: number }).processID)
      })
      try {
        const store = new PgStore({ pool: single })
        const boom = new Error('boom')
        const result = store.tx(async (t) => {
          await t.put('ns', 'k', 'v')
          const pid = pids[0]!
          await pool.query('SELECT pg_terminate_backend($1)', [pid])
          await until(async () => {
            const r = await pool.query('SELECT 1 FROM pg_stat_activity WHERE pid = $1', [pid])
            return r.rowCount === 0
          })
          throw boom
        })
        await expect(result).rejects.toBe(boom)
        expect(single.totalCount).toBe(0)
        expect(await store.get('ns', 'k')).toBeUndefined()
        expect(pids).toHaveLength(2)
      } finally {
        await single.end()
      }
    })

    it('rejects at commit when a statement failed inside it, even if fn caught the error', async () => {
      const store = new PgStore({ pool })
      const hugeKey = randomBytes(12_000).toString('base64')
      const result = store.tx(async (t) => {
        await t.put('ns', 'a', '1')
        await t.put('ns', hugeKey, 'v').catch(() => undefined)
        return 'done'
      })
      await expect(result).rejects.toThrow(/rolled back/)
      await expect(result).rejects.toHaveProperty(
        'cause.message',
        expect.stringMatching(/index row/),
      )
      expect(await store.get('ns', 'a')).toBeUndefined()
    })
  })

  describe('input', () => {
    it('rejects NUL characters with a TypeError before reaching the database', async () => {
      const store = new PgStore({ pool })
      await expect(store.put('ns', 'k', 'a\0b')).rejects.toThrow(TypeError)
      await expect(store.put('ns', 'k', 'a\0b')).rejects.toThrow(/NUL/)
      await expect(store.put('ns', 'k\0', 'v')).rejects.toThrow(TypeError)
      await expect(store.put('n\0s', 'k', 'v')).rejects.toThrow(TypeError)
      await expect(store.get('ns', '\0')).rejects.toThrow(TypeError)
      await expect(store.delete('ns', '\0')).rejects.toThrow(TypeError)
      await expect(store.list('ns', '\0')).rejects.toThrow(TypeError)
      await expect(
        store.putMany('ns', [
          ['ok', 'v'],
          ['k', '\0'],
        ]),
      ).rejects.toThrow(TypeError)
      await store.tx(async (t) => {
        await expect(t.put('ns', 'k', '\0')).rejects.toThrow(TypeError)
        await t.put('ns', 'after', 'the transaction is still usable')
      })
      expect(await store.list('ns', '')).toEqual(['after'])
      expect(() => new PgStore({ pool, prefix: 'tenant\0' })).toThrow(TypeError)
    })

    it('rejects lone surrogates, which UTF-8 would turn into another key', async () => {
      const store = new PgStore({ pool })
      await store.put('ns', '\uFFFD', 'replacement character')
      await expect(store.get('ns', '\uD800')).rejects.toThrow(TypeError)
      await expect(store.put('ns', 'k', 'x\uDC00')).rejects.toThrow(/surrogate/)
      expect(await store.list('ns', '')).toEqual(['\uFFFD'])
    })

    it('accepts only plain lower-case table names', async () => {
      for (const table of ['Weave', 'a-b', 'kv; DROP TABLE weave_kv', '1kv', '', 'x'.repeat(64)]) {
        expect(() => new PgStore({ pool, table })).toThrow(TypeError)
        await expect(migrate(pool, { table })).rejects.toThrow(TypeError)
      }
    })
  })

  describe('tenant', () => {
    it('keeps two tenants apart whatever namespaces and prefixes they use', async () => {
      const acme = new PgStore({ pool, tenant: 'acme' })
      const globex = new PgStore({ pool, tenant: 'globex' })
      const bare = new PgStore({ pool })
      await acme.put('checkpoint:g', 'run-1', 'acme')
      await acme.putMany('checkpoint:g', [['run-2', 'acme']])
      expect(await globex.get('checkpoint:g', 'run-1')).toBeUndefined()
      expect(await globex.list('checkpoint:g', '')).toEqual([])
      expect(await bare.get('checkpoint:g', 'run-1')).toBeUndefined()
      await globex.delete('checkpoint:g', 'run-1')
      expect(await acme.list('checkpoint:g', '')).toEqual(['run-1', 'run-2'])
      const { rows } = await pool.query<{ tenant_id: string; ns: string }>(
        'SELECT DISTINCT tenant_id, ns FROM weave_kv',
      )
      expect(rows).toEqual([{ tenant_id: 'acme', ns: '0:checkpoint:g' }])
    })

    it('sets the tenant for row-level security on every call, so policies bind a role that owns nothing', async () => {
      const role = `kv_reader_${randomBytes(4).toString('hex')}`
      await pool.query(`CREATE ROLE ${role} NOLOGIN NOBYPASSRLS`)
      try {
        await pool.query(`GRANT SELECT, INSERT, UPDATE, DELETE ON weave_kv TO ${role}`)
        await pool.query('ALTER TABLE weave_kv ENABLE ROW LEVEL SECURITY')
        await pool.query(
          `CREATE POLICY kv_tenant ON weave_kv TO ${role}
           USING (tenant_id = current_setting('weave.tenant', true))
           WITH CHECK (tenant_id = current_setting('weave.tenant', true))`,
        )
        const asRole = new pg.Pool({ connectionString: db.url, options: `-c role=${role}` })
        try {
          const acme = new PgStore({ pool: asRole, tenant: 'acme' })
          await acme.put('ns', 'k', 'v')
          await acme.tx(async (t) => t.put('ns', 'k2', 'v2'))
          expect(await acme.list('ns', '')).toEqual(['k', 'k2'])
          // Without the tenant set, the policy hides every row from the role.
          const { rows } = await asRole.query('SELECT * FROM weave_kv')
          expect(rows).toEqual([])
          // A forged setting in the same call cannot widen what a statement sees.
          const forged = await asRole.query(
            `SELECT count(*)::int AS n FROM weave_kv WHERE tenant_id = 'acme'`,
          )
          expect(forged.rows[0]).toEqual({ n: 0 })
        } finally {
          await asRole.end()
        }
      } finally {
        await pool.query('DROP POLICY IF EXISTS kv_tenant ON weave_kv')
        await pool.query('ALTER TABLE weave_kv DISABLE ROW LEVEL SECURITY')
        await pool.query(`REVOKE ALL ON weave_kv FROM ${role}`)
        await pool.query(`DROP ROLE ${role}`)
      }
    })

    it('refuses an empty tenant and a table whose function names would not fit', () => {
      expect(() => new PgStore({ pool, tenant: '' })).toThrow(TypeError)
      expect(() => new PgStore({ pool, tenant: 'a', table: 'x'.repeat(55) })).toThrow(TypeError)
    })
  })

  describe('migrate', () => {
    it('upgrades a table made by the first migration, keeping its rows', async () => {
      await pool.query(kvTableDdl('kv_legacy'))
      await pool.query(`INSERT INTO kv_legacy (ns, key, value) VALUES ('0:ns', 'k', 'old')`)
      await migrate(pool, { table: 'kv_legacy' })
      expect(await new PgStore({ pool, table: 'kv_legacy' }).get('ns', 'k')).toBe('old')
      await new PgStore({ pool, table: 'kv_legacy', tenant: 'acme' }).put('ns', 'k', 'acme')
      expect(await new PgStore({ pool, table: 'kv_legacy' }).get('ns', 'k')).toBe('old')
    })

    it('is idempotent, sequentially and concurrently, and keeps the data', async () => {
      const store = new PgStore({ pool })
      await store.put('ns', 'k', 'kept')
      await migrate(pool)
      await migrate(pool)
      await Promise.all([1, 2, 3].map(() => migrate(pool, { table: 'kv_concurrent' })))
      expect(await store.get('ns', 'k')).toBe('kept')
      const { rows } = await pool.query<{ table_name: string; column_name: string }>(
        `SELECT table_name, column_name FROM information_schema.columns
         WHERE table_name IN ('weave_kv', 'kv_concurrent') AND collation_name = 'C'
         ORDER BY table_name, column_name`,
      )
      expect(rows.map((r) => `${r.table_name}.${r.column_name}`)).toEqual([
        'kv_concurrent.key',
        'kv_concurrent.ns',
        'kv_concurrent.tenant_id',
        'weave_kv.key',
        'weave_kv.ns',
        'weave_kv.tenant_id',
      ])
    })

    it('serves stores on another table, apart from the default one', async () => {
      await migrate(pool, { table: 'other_kv' })
      const other = new PgStore({ pool, table: 'other_kv' })
      const main = new PgStore({ pool })
      await other.put('ns', 'k', 'other')
      await main.put('ns', 'k', 'main')
      expect(await other.get('ns', 'k')).toBe('other')
      expect(await main.get('ns', 'k')).toBe('main')
      expect(await other.list('ns', '')).toEqual(['k'])
    })
  })

  describe('list', () => {
    it('runs as a range condition on the primary-key index, in custom and generic plans', async () => {
      const store = new PgStore({ pool })
      for (let n = 0; n < 20; n++) {
        const entries = Array.from({ length: 500 }, (_, i) => [`run-${i}/step`, 'v'] as const)
        await store.putMany(`ns-${n}`, entries)
      }
      await pool.query('VACUUM ANALYZE weave_kv')
      const sql = kvStatements('weave_kv')
      const cases = [
        { text: sql.listRange.text, params: ['0:ns-3', 'run-1', 'run-2'], cond: /key >=.*key </ },
        { text: sql.listFrom.text, params: ['0:ns-3', 'run-4'], cond: /key >=/ },
      ]
      const client = await pool.connect()
      const explain = async (text: string, params: string[] = []): Promise<PlanNode[]> => {
        const { rows } = await client.query(`EXPLAIN (FORMAT JSON) ${text}`, params)
        return planNodes((rows[0] as { 'QUERY PLAN': [{ Plan: PlanNode }] })['QUERY PLAN'][0].Plan)
      }
      try {
        for (const { text, params, cond } of cases) {
          const custom = await explain(text, params)
          await client.query(`PREPARE explained(${params.map(() => 'text').join(', ')}) AS ${text}`)
          await client.query('SET plan_cache_mode = force_generic_plan')
          const generic = await explain(
            `EXECUTE explained(${params.map((p) => `'${p}'`).join(', ')})`,
          )
          await client.query('RESET plan_cache_mode')
          await client.query('DEALLOCATE explained')
          for (const nodes of [custom, generic]) {
            const scan = nodes.find((node) => node['Index Name'] === 'weave_kv_pkey')
            expect(String(scan?.['Index Cond'])).toMatch(/ns = /)
            expect(String(scan?.['Index Cond'])).toMatch(cond)
            expect(nodes.map((node) => node['Node Type'])).not.toContain('Seq Scan')
          }
          // Whether a bitmap or sequential scan and a sort beat walking the index is the planner's
          // call on this small table; what must hold is that the index alone gives the order.
          await client.query('SET enable_bitmapscan = off; SET enable_seqscan = off')
          const ordered = await explain(text, params)
          await client.query('RESET enable_bitmapscan; RESET enable_seqscan')
          expect(ordered.map((node) => node['Node Type'])).toEqual([
            expect.stringMatching(/^Index (Only )?Scan$/),
          ])
        }
      } finally {
        client.release()
      }
      expect(await store.list('ns-3', 'run-1')).toHaveLength(111)
    })
  })
})
