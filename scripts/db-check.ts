// Fails when the drizzle schema has changes that no migration in migrations/app records.
import { execFileSync } from 'node:child_process'

const output = execFileSync('npx', ['drizzle-kit', 'generate', '--name=drift-check'], {
  encoding: 'utf8',
})
if (!/No schema changes/i.test(output)) {
  execFileSync('git', ['checkout', '--', 'migrations/app'])
  execFileSync('git', ['clean', '-fq', 'migrations/app'])
  console.error('db:check: the drizzle schema has changes missing from migrations/app:\n' + output)
  process.exit(1)
}
console.log('db:check: migrations/app matches the drizzle schema')
