import { spawnSync } from 'node:child_process'
import { existsSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'

const root = path.resolve(import.meta.dirname, '../..')
const migrations = path.join(root, 'migrations/app')
const untracked = path.join(migrations, '9999_a-developers-work-in-progress.sql')

function dbCheck(...args: string[]) {
  return spawnSync(process.execPath, ['--import', 'tsx', 'scripts/db-check.ts', ...args], {
    cwd: root,
    encoding: 'utf8',
  })
}

afterEach(() => rmSync(untracked, { force: true }))

describe('npm run db:check', () => {
  it('reports a drifted schema without touching a developer’s uncommitted migrations', () => {
    writeFileSync(untracked, '-- not committed yet\n')
    const before = readdirSync(migrations).sort()
    const result = dbCheck('scripts/test/fixtures/drifted-schema')
    expect(result.status).toBe(1)
    expect(result.stderr).toMatch(/drift_check_only|changes missing/)
    expect(existsSync(untracked)).toBe(true)
    expect(readdirSync(migrations).sort()).toEqual(before)
  })

  it('passes when the migrations record the schema', () => {
    const result = dbCheck()
    expect(result.stderr).toBe('')
    expect(result.status).toBe(0)
  })
})
