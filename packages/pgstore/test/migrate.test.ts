import { readFile } from 'node:fs/promises'
import { describe, expect, it } from 'vitest'
import { WEAVE_KV_MIGRATION, WEAVE_KV_TENANT_MIGRATION, kvTableDdl } from '../src/migrate.js'

const MIGRATION_FILE = new URL('../../../migrations/pgstore/0001_weave_kv.sql', import.meta.url)
const TENANT_MIGRATION_FILE = new URL(
  '../../../migrations/pgstore/0002_tenant.sql',
  import.meta.url,
)

describe('the weave_kv migration', () => {
  it('is the same text in migrations/pgstore and in the package', async () => {
    expect(await readFile(MIGRATION_FILE, 'utf8')).toBe(WEAVE_KV_MIGRATION)
    expect(await readFile(TENANT_MIGRATION_FILE, 'utf8')).toBe(WEAVE_KV_TENANT_MIGRATION)
  })

  it('creates the table only if missing, with byte-order ns and key', () => {
    const ddl = kvTableDdl('tenant_kv')
    expect(ddl).toContain('CREATE TABLE IF NOT EXISTS "tenant_kv"')
    expect(ddl).toContain('ns text COLLATE "C" NOT NULL')
    expect(ddl).toContain('key text COLLATE "C" NOT NULL')
    expect(ddl).toContain('PRIMARY KEY (ns, key)')
  })
})
