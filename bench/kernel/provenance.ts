import { execFileSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { readdir, readFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

/**
 * Which sources were measured: the git commit, whether the measured packages' sources differ from
 * it, and a short hash of those sources, so a recorded result can be matched to the code it timed.
 */
export async function provenance(packages: readonly string[]): Promise<string> {
  const dirs = packages.map((p) => dirname(fileURLToPath(import.meta.resolve(p))))
  const hash = createHash('sha256')
  for (const dir of dirs) {
    const files = (await readdir(dir)).filter((f) => f.endsWith('.ts')).sort()
    for (const f of files) hash.update(f).update(await readFile(join(dir, f)))
  }
  const git = (...args: string[]): string => {
    try {
      return execFileSync('git', args, {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'ignore'],
      }).trim()
    } catch {
      return ''
    }
  }
  const commit = git('rev-parse', '--short', 'HEAD') || 'unknown commit'
  const dirty = git('status', '--porcelain', '--', ...dirs) !== ''
  return `${packages.join(', ')} at ${commit}${dirty ? ' with uncommitted changes' : ''} (sources sha256 ${hash.digest('hex').slice(0, 12)})`
}
