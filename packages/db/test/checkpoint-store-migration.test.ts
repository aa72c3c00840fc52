import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'

const root = new URL('../../../', import.meta.url)
const statements = (file: string) =>
  readFileSync(new URL(file, root), 'utf8')
    .split('\n')
    .filter((line) => !line.startsWith('--'))
    .join('\n')
    .trim()

describe('the checkpoint store migration', () => {
  it('creates exactly the table @weave/pgstore defines, so workers share the app database', () => {
    const pgstore = statements('migrations/pgstore/0001_weave_kv.sql')
    const app = statements('migrations/app/0003_checkpoint-store.sql')
    expect(app.startsWith(pgstore)).toBe(true)
    expect(app).toContain('GRANT SELECT, INSERT, UPDATE, DELETE ON "weave_kv" TO weave_app')
  })
})
