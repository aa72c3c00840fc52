// Fails when the drizzle schema has changes that no migration in migrations/app records. The
// check generates into a copy of the migrations in a temporary directory, so nothing in the
// working tree (a developer's uncommitted migration included) is ever written or removed.
import { execFileSync } from 'node:child_process'
import { cpSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'

const root = process.cwd()
const scratch = mkdtempSync(path.join(tmpdir(), 'weave-db-check-'))
try {
  cpSync(path.join(root, 'migrations/app'), path.join(scratch, 'app'), { recursive: true })
  // An argument points the check at another schema (its own test gives one that drifted).
  const schemaDir = process.argv[2] ?? path.join(root, 'packages/db/src/schema')
  const schema = path.relative(scratch, path.resolve(root, schemaDir))
  const output = execFileSync(
    path.join(root, 'node_modules/.bin/drizzle-kit'),
    ['generate', '--dialect=postgresql', `--schema=${schema}`, '--out=app', '--name=drift-check'],
    { cwd: scratch, encoding: 'utf8' },
  )
  if (!/No schema changes/i.test(output)) {
    console.error(
      'db:check: the drizzle schema has changes missing from migrations/app:\n' + output,
    )
    process.exitCode = 1
  } else {
    console.log('db:check: migrations/app matches the drizzle schema')
  }
} finally {
  rmSync(scratch, { recursive: true, force: true })
}
