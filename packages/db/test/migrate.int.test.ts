import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import pg from 'pg'
import { afterAll, describe, expect, it } from 'vitest'
import { APP_MIGRATIONS_FOLDER, migrateDatabase } from '@weave/db'
import { dropDatabase, randomDatabaseUrl } from './test-database.js'

const { url, name } = randomDatabaseUrl('weave_db_migrate')

afterAll(async () => {
  await dropDatabase(name)
})

async function query<T extends pg.QueryResultRow>(sql: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    return (await client.query<T>(sql)).rows
  } finally {
    await client.end()
  }
}

describe('migrateDatabase', () => {
  it('creates a missing database and applies every migration', async () => {
    const result = await migrateDatabase({ connectionString: url })
    expect(result.createdDatabase).toBe(true)
    const journal = JSON.parse(
      readFileSync(join(APP_MIGRATIONS_FOLDER, 'meta', '_journal.json'), 'utf8'),
    ) as { entries: { tag: string }[] }
    expect(result.applied).toEqual(journal.entries.map((e) => e.tag))
    expect(result.applied.slice(0, 3)).toEqual([
      '0000_app-role',
      '0001_tables',
      '0002_grants-and-audit-guards',
    ])
    const tables = await query<{ tablename: string; tableowner: string; rowsecurity: boolean }>(
      `select tablename, tableowner, rowsecurity from pg_tables where schemaname = 'public' order by 1`,
    )
    expect(tables.map((t) => t.tablename)).toEqual([
      'approval_decisions',
      'approval_tokens',
      'approvals',
      'audit_anchors',
      'audit_events',
      'audit_pending',
      'graph_versions',
      'graphs',
      'retention_policies',
      'run_event_watches',
      'run_events',
      'runs',
      'schedule_firings',
      'schedules',
      'tenant_events',
      'tenants',
      'threads',
      'weave_kv',
      'webhook_attempts',
      'webhook_deliveries',
      'webhooks',
    ])
    // weave_kv, the kernel's checkpoint store, isolates tenants by PgStore's namespace prefix.
    const tenantTables = tables.filter((t) => t.tablename !== 'weave_kv')
    expect(tenantTables.every((t) => t.rowsecurity && t.tableowner !== 'weave_app')).toBe(true)
  })

  it('creates an app role that cannot log in, bypass RLS or own anything', async () => {
    const [role] = await query<{ rolcanlogin: boolean; rolbypassrls: boolean; rolsuper: boolean }>(
      `select rolcanlogin, rolbypassrls, rolsuper from pg_roles where rolname = 'weave_app'`,
    )
    expect(role).toEqual({ rolcanlogin: false, rolbypassrls: false, rolsuper: false })
  })

  it('is idempotent: a second run applies nothing', async () => {
    const again = await migrateDatabase({ connectionString: url })
    expect(again).toEqual({ createdDatabase: false, applied: [] })
  })

  it('tolerates concurrent migrators of a new database', async () => {
    const other = randomDatabaseUrl('weave_db_migrate_race')
    try {
      const results = await Promise.all([
        migrateDatabase({ connectionString: other.url }),
        migrateDatabase({ connectionString: other.url }),
        migrateDatabase({ connectionString: other.url }),
      ])
      expect(results.filter((r) => r.createdDatabase)).toHaveLength(1)
      expect(results.filter((r) => r.applied.length > 0)).toHaveLength(1)
    } finally {
      await dropDatabase(other.name)
    }
  })
})
