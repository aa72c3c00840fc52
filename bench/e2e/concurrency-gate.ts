// What the Postgres-side gate of concurrency keys costs a start and an end, against a plain run:
// `node --import tsx bench/e2e/concurrency-gate.ts [runs]` (DATABASE_URL: a server where a
// scratch database may be created and dropped). Round trips are counted on the pool's clients.
import { randomBytes } from 'node:crypto'
import { performance } from 'node:perf_hooks'
import {
  appendRunEvent,
  claimRun,
  createDb,
  createRun,
  migrateDatabase,
  registerGraphVersion,
  transitionRun,
  withTenant,
  type ConcurrencyKey,
  type Database,
} from '@weave/db'
import { sql } from 'drizzle-orm'
import pg from 'pg'

const RUNS = Number(process.argv[2] ?? 300)
const PARALLEL = 8
const SERVER = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'
const TENANT = 'bench'

let statements = 0

function countStatements(database: Database): void {
  database.pool.on('connect', (client) => {
    const query = client.query.bind(client) as (...args: unknown[]) => unknown
    ;(client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args) => {
      statements += 1
      return query(...args)
    }
  })
}

async function inParallel<T>(items: T[], fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0
  await Promise.all(
    Array.from({ length: PARALLEL }, async () => {
      while (next < items.length) await fn(items[next++] as T)
    }),
  )
}

async function measure(label: string, ids: string[], fn: (id: string) => Promise<void>) {
  statements = 0
  const t0 = performance.now()
  await inParallel(ids, fn)
  const ms = performance.now() - t0
  const per = (n: number) => (n / ids.length).toFixed(2)
  console.log(`${label.padEnd(44)} ${per(ms)} ms/run  ${per(statements)} statements/run`)
}

async function main(): Promise<void> {
  const name = `weave_bench_gate_${randomBytes(4).toString('hex')}`
  const url = Object.assign(new URL(SERVER), { pathname: `/${name}` }).toString()
  await migrateDatabase({ connectionString: url })
  const database = createDb({ connectionString: url, max: PARALLEL + 2 })
  countStatements(database)
  try {
    const spec = { entry: 'a', steps: { a: { kind: 'set', values: { done: 'true' } } } }
    await withTenant(database, TENANT, (tx) =>
      registerGraphVersion(tx, { name: 'g', spec, createdBy: 'bench' }),
    )
    const start = (concurrency: ConcurrencyKey | null) => async () => {
      const id = await withTenant(database, TENANT, async (tx) => {
        const { run } = await createRun(tx, {
          graphName: 'g',
          graphVersion: 1,
          input: {},
          createdBy: 'bench',
          concurrency,
        })
        await appendRunEvent(tx, run.id, 'run.queued', { graph: 'g', version: 1 })
        return run.id
      })
      return id
    }
    const startAll = async (label: string, concurrency: ConcurrencyKey | null) => {
      const ids: string[] = []
      const slots = Array.from({ length: RUNS }, (_, i) => String(i))
      await measure(label, slots, async () => {
        ids.push(await start(concurrency)())
      })
      return ids
    }
    const endAll = (label: string, ids: string[]) =>
      measure(label, ids, async (id) => {
        await withTenant(database, TENANT, async (tx) => {
          await claimRun(tx, id, ['queued'], `job-${id}`)
        })
        await withTenant(database, TENANT, (tx) => transitionRun(tx, id, ['running'], 'completed'))
      })

    const plain = await startAll('start, no key', null)
    const wide = await startAll('start, one key, limit never reached', {
      key: 'wide',
      limit: 1_000_000,
    })
    const narrow = await startAll('start, one key, limit 8 (most wait)', {
      key: 'narrow',
      limit: 8,
    })
    await endAll('claim + end, no key', plain)
    await endAll('claim + end, one key, nobody waiting', wide)
    // Ends of the narrow key, each admitting the next in line: taken in line order, 8 at a time.
    const line = await withTenant(database, TENANT, async (tx) => {
      const { rows } = await tx.db.execute<{ id: string }>(
        sql`select id from runs where concurrency_key = 'narrow' order by concurrency_seq`,
      )
      return rows.map((r) => r.id)
    })
    const narrowEnd = async (id: string) => {
      await withTenant(database, TENANT, async (tx) => {
        await claimRun(tx, id, ['queued'], `job-${id}`)
      })
      await withTenant(database, TENANT, (tx) => transitionRun(tx, id, ['running'], 'completed'))
    }
    statements = 0
    const t0 = performance.now()
    for (let i = 0; i < line.length; i += PARALLEL) {
      await Promise.all(line.slice(i, i + PARALLEL).map(narrowEnd))
    }
    const ms = performance.now() - t0
    console.log(
      `${'claim + end, one key, each end admits one'.padEnd(44)} ${(ms / line.length).toFixed(2)} ms/run  ${(statements / line.length).toFixed(2)} statements/run`,
    )
    if (narrow.length !== line.length) throw new Error('the narrow line lost runs')
  } finally {
    await database.close()
    const admin = new pg.Client({ connectionString: SERVER })
    await admin.connect()
    await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)
    await admin.end()
  }
}

await main()
