import { execFileSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { readdir, readFile } from 'node:fs/promises'
import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'

const ROOT = fileURLToPath(new URL('../../', import.meta.url))

// Everything `weave api` and `weave worker` run: the apps, the packages under them, and the
// migrations that define the Postgres functions every request and step calls.
const MEASURED = ['apps/api/src', 'apps/worker/src', 'apps/cli/src', 'packages', 'migrations/app']

function isSource(name: string): boolean {
  return (name.endsWith('.ts') && !name.endsWith('.test.ts')) || name.endsWith('.sql')
}

async function sourceFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true })
  const files: string[] = []
  for (const entry of entries) {
    if (entry.name === 'node_modules' || entry.name === 'test') continue
    const path = join(dir, entry.name)
    if (entry.isDirectory()) files.push(...(await sourceFiles(path)))
    else if (isSource(entry.name)) files.push(path)
  }
  return files
}

/**
 * Which Weave was measured: the git commit, whether its sources differ from it, and a short hash
 * of the sources, so a recorded result can be matched to the code it timed.
 */
export async function provenance(): Promise<string> {
  const hash = createHash('sha256')
  const files = (await Promise.all(MEASURED.map((d) => sourceFiles(join(ROOT, d))))).flat().sort()
  for (const file of files) hash.update(relative(ROOT, file)).update(await readFile(file))
  const git = (...args: string[]): string => {
    try {
      return execFileSync('git', args, {
        cwd: ROOT,
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'ignore'],
      }).trim()
    } catch {
      return ''
    }
  }
  const commit = git('rev-parse', '--short', 'HEAD') || 'unknown commit'
  const dirty = git('status', '--porcelain', '--', ...MEASURED) !== ''
  return `apps (api, worker, cli), packages and migrations at ${commit}${dirty ? ' with uncommitted changes' : ''} (sources sha256 ${hash.digest('hex').slice(0, 12)}, ${files.length} files)`
}
