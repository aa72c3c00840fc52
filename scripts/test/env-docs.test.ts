import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { SharedEnv } from '@weave/config'
import { describe, expect, it } from 'vitest'
import { API_ENV_VARIABLES } from '../../apps/api/src/config.js'
import { CLI_ENV_VARIABLES } from '../../apps/cli/src/config.js'
import { WORKER_ENV_VARIABLES } from '../../apps/worker/src/config.js'

// Every environment variable Weave reads is in the README's configuration table, and every
// variable the table names is read: the table is the one list operators have. The apps read the
// environment only through their config modules' schemas (eslint forbids `process.env` elsewhere),
// so those schemas' keys are what the code reads.

const root = path.resolve(import.meta.dirname, '../..')
const read = (file: string) => readFileSync(path.join(root, file), 'utf8')

// Variables read but intentionally left out of the table, each with its reason. Prefer
// documenting a variable to listing it here.
const UNDOCUMENTED: ReadonlySet<string> = new Set<string>([])

/** Every variable the API's, the workers' and the operator commands' configurations read. */
const readByCode = new Set([
  ...Object.keys(SharedEnv),
  ...API_ENV_VARIABLES,
  ...WORKER_ENV_VARIABLES,
  ...CLI_ENV_VARIABLES,
])

/** The names in the first column of the README's `| variable | default | what |` table. */
function documentedVariables(readme: string): string[] {
  const lines = readme.split('\n')
  const header = lines.findIndex((line) =>
    /^\|\s*variable\s*\|\s*default\s*\|\s*what\s*\|$/.test(line),
  )
  if (header === -1) throw new Error('README.md has no | variable | default | what | table')
  const names: string[] = []
  // The header, then its separator row, then one row per line until the table ends.
  for (const line of lines.slice(header + 2)) {
    if (!line.startsWith('|')) break
    const firstCell = line.split('|')[1] ?? ''
    const found = [...firstCell.matchAll(/`([A-Za-z_][A-Za-z0-9_]*)`/g)].map(([, name]) => name!)
    if (found.length === 0) throw new Error(`a configuration row names no variable: ${line}`)
    names.push(...found)
  }
  return names
}

/** Every TypeScript source of apps/*\/src and packages/*\/src, relative to the root. */
function sources(): string[] {
  const found: string[] = []
  const walk = (dir: string) => {
    for (const entry of readdirSync(path.join(root, dir), { withFileTypes: true })) {
      const file = `${dir}/${entry.name}`
      if (entry.isDirectory() && entry.name !== 'node_modules') walk(file)
      else if (entry.isFile() && file.endsWith('.ts')) found.push(file)
    }
  }
  for (const top of ['apps', 'packages']) {
    for (const entry of readdirSync(path.join(root, top), { withFileTypes: true })) {
      if (entry.isDirectory() && readdirSync(path.join(root, top, entry.name)).includes('src')) {
        walk(`${top}/${entry.name}/src`)
      }
    }
  }
  return found
}

const documented = documentedVariables(read('README.md'))

describe("the README's configuration table", () => {
  it('finds the variables on both sides', () => {
    expect(readByCode.size).toBeGreaterThan(40)
    expect(documented.length).toBeGreaterThan(40)
    expect(documented).toContain('PORT')
    expect(documented).toContain('WEAVE_JWT_JWKS_URL')
  })

  it('documents every variable the code reads', () => {
    const missing = [...readByCode].filter(
      (name) => !documented.includes(name) && !UNDOCUMENTED.has(name),
    )
    expect(missing).toEqual([])
  })

  it('names only variables the code reads, each once', () => {
    expect(documented.filter((name) => !readByCode.has(name))).toEqual([])
    expect(documented.filter((name, i) => documented.indexOf(name) !== i)).toEqual([])
  })

  it('waives only variables that are read and left out of the table', () => {
    expect([...UNDOCUMENTED].filter((name) => !readByCode.has(name))).toEqual([])
    expect([...UNDOCUMENTED].filter((name) => documented.includes(name))).toEqual([])
  })
})

describe('environment reads outside the config modules', () => {
  const files = sources()
  // `process.env.X`, `process.env['X']` and `const { X } = process.env`.
  const NAMED_READ = /process\.env\s*(?:\.\s*[A-Za-z_]|\[)|\{[^{}]*\}\s*=\s*process\.env\b/
  // A variable read by name from an environment passed along, e.g. `env.NODE_ENV`.
  const PASSED_READ = /\benv\s*(?:\.\s*|\[\s*['"`])([A-Z][A-Z0-9_]*)\b/g

  it('has sources to check', () => {
    expect(files.length).toBeGreaterThan(100)
  })

  it('reads no variable by name from process.env', () => {
    const found = files
      .filter((file) => !/^apps\/[^/]+\/src\/config\.ts$/.test(file))
      .filter((file) => NAMED_READ.test(read(file)))
    expect(found).toEqual([])
  })

  it('reads by name only variables the configurations read', () => {
    const found: string[] = []
    for (const file of files) {
      for (const [, name] of read(file).matchAll(PASSED_READ)) {
        if (!readByCode.has(name!)) found.push(`${file}: ${name}`)
      }
    }
    expect(found).toEqual([])
  })
})
