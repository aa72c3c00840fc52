import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import ts from 'typescript'
import { describe, expect, it } from 'vitest'

// What the repository promises about itself, checked on the tree as it is: an invariant that
// names its test names a file that exists; the apps read checkpoints only through the kernel and
// take job ids only from @weave/db's catalogue; no file points at documents outside the
// repository.

const root = path.resolve(import.meta.dirname, '../..')

const SKIPPED_DIRS = new Set([
  'node_modules',
  '.git',
  'dist',
  'coverage',
  '.vitest-cache',
  '.weave',
])
const TEXT_EXTENSIONS = new Set([
  '.ts',
  '.js',
  '.cjs',
  '.mjs',
  '.json',
  '.md',
  '.yml',
  '.yaml',
  '.sql',
  '.sh',
])
const SOURCE_EXTENSIONS = new Set(['.ts', '.js', '.cjs', '.mjs'])

/** Every file of the repository, as a path relative to its root with `/` separators. */
function repoFiles(dir = root): string[] {
  const files: string[] = []
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.isDirectory()) {
      if (!SKIPPED_DIRS.has(entry.name)) files.push(...repoFiles(path.join(dir, entry.name)))
    } else if (entry.isFile()) {
      files.push(path.relative(root, path.join(dir, entry.name)).split(path.sep).join('/'))
    }
  }
  return files
}

const files = repoFiles()
/**
 * A file's text; empty when it is gone since the listing: test files run side by side, and one
 * of them (db-check's) adds an untracked migration for a moment.
 */
function read(file: string): string {
  try {
    return readFileSync(path.join(root, file), 'utf8')
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return ''
    throw err
  }
}

/** The text of every comment of a TypeScript or JavaScript file. */
function commentsOf(file: string, text: string): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false)
  const seen = new Set<number>()
  const comments: string[] = []
  const collect = (ranges: ts.CommentRange[] | undefined) => {
    for (const range of ranges ?? []) {
      if (seen.has(range.pos)) continue
      seen.add(range.pos)
      comments.push(text.slice(range.pos, range.end))
    }
  }
  const visit = (node: ts.Node) => {
    collect(ts.getLeadingCommentRanges(text, node.getFullStart()))
    collect(ts.getTrailingCommentRanges(text, node.getEnd()))
    ts.forEachChild(node, visit)
  }
  visit(source)
  collect(ts.getLeadingCommentRanges(text, source.endOfFileToken.getFullStart()))
  return comments
}

/** Test file names pinned in parentheses, bare or as a path, e.g. `(merge.prop.test.ts)`. */
function pinnedTestNames(text: string): string[] {
  const names: string[] = []
  for (const [group] of text.matchAll(/\([^()]*\)/g)) {
    for (const [name] of group.matchAll(/[A-Za-z0-9_][\w./-]*\.test\.ts/g)) names.push(name)
  }
  return names
}

function isPinned(name: string): boolean {
  return name.includes('/')
    ? files.some((file) => file === name || file.endsWith(`/${name}`))
    : files.some((file) => path.posix.basename(file) === name)
}

// Pins allowed to name no file while they are being fixed. The list may only shrink: an entry
// that is fixed fails the check below until it is removed here.
const KNOWN_STALE_PINS: ReadonlyArray<{ file: string; name: string }> = []

describe('pinned tests', () => {
  const pins: Array<{ file: string; name: string }> = []
  for (const file of files) {
    const ext = path.posix.extname(file)
    const isDoc = ext === '.md'
    if (!isDoc && !SOURCE_EXTENSIONS.has(ext)) continue
    const text = read(file)
    const searched = isDoc ? [text] : commentsOf(file, text)
    for (const part of searched) {
      for (const name of pinnedTestNames(part)) pins.push({ file, name })
    }
  }
  const stale = pins.filter((pin) => !isPinned(pin.name))
  const isKnown = (pin: { file: string; name: string }) =>
    KNOWN_STALE_PINS.some((known) => known.file === pin.file && known.name === pin.name)

  it('finds the pins it checks', () => {
    expect(pins.length).toBeGreaterThan(20)
  })

  it('every test a comment, README or doc pins in parentheses exists', () => {
    expect(stale.filter((pin) => !isKnown(pin))).toEqual([])
  })

  it('lists only known stale pins that are still stale', () => {
    const fixed = KNOWN_STALE_PINS.filter(
      (known) => !stale.some((pin) => pin.file === known.file && pin.name === known.name),
    )
    expect(fixed).toEqual([])
  })
})

/** Every node of a file's syntax tree. */
function* nodesOf(file: string, text: string): Generator<ts.Node> {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true)
  const stack: ts.Node[] = [source]
  while (stack.length > 0) {
    const node = stack.pop()!
    yield node
    ts.forEachChild(node, (child) => {
      stack.push(child)
    })
  }
}

/** Where a node starts, as `file:line`. */
function where(file: string, node: ts.Node): string {
  const { line } = node.getSourceFile().getLineAndCharacterOfPosition(node.getStart())
  return `${file}:${line + 1}`
}

const appSources = files.filter((file) => /^apps\/[^/]+\/src\/.*\.ts$/.test(file))

// The kernel's checkpoint namespace and envelope are its own: apps read checkpoints through
// `loadCheckpoint` and the Graph methods, never by parsing stored text.
const CHECKPOINT_TEXT = /checkpoint|\bcp\b|\.get\(|\.value\b/i
// Ids of the job catalogue (@weave/db `JOBS`): code asks `jobId(kind, payload)` for them.
const JOB_ID_PREFIXES = ['resume-', 'recover-', 'delivery-', 'wait-', 'approval-timeout-']

describe('apps/*/src', () => {
  it('has sources to check', () => {
    expect(appSources.length).toBeGreaterThan(50)
  })

  it('parses no checkpoint and names no checkpoint namespace', () => {
    const found: string[] = []
    for (const file of appSources) {
      for (const node of nodesOf(file, read(file))) {
        if (
          ts.isCallExpression(node) &&
          node.expression.getText() === 'JSON.parse' &&
          node.arguments.some((arg) => CHECKPOINT_TEXT.test(arg.getText()))
        ) {
          found.push(`${where(file, node)} ${node.getText()}`)
        }
        if (
          (ts.isStringLiteral(node) ||
            ts.isNoSubstitutionTemplateLiteral(node) ||
            ts.isTemplateHead(node) ||
            ts.isTemplateMiddle(node) ||
            ts.isTemplateTail(node)) &&
          node.text.includes('checkpoint:')
        ) {
          found.push(`${where(file, node)} ${node.getText()}`)
        }
      }
    }
    expect(found).toEqual([])
  })

  it('builds no job id by hand', () => {
    const found: string[] = []
    const isJobIdText = (text: string) => JOB_ID_PREFIXES.some((prefix) => text.startsWith(prefix))
    for (const file of appSources) {
      for (const node of nodesOf(file, read(file))) {
        const isTemplate =
          (ts.isTemplateExpression(node) && isJobIdText(node.head.text)) ||
          (ts.isNoSubstitutionTemplateLiteral(node) && isJobIdText(node.text))
        const isConcatenation =
          ts.isBinaryExpression(node) &&
          node.operatorToken.kind === ts.SyntaxKind.PlusToken &&
          ts.isStringLiteral(node.left) &&
          isJobIdText(node.left.text)
        if (isTemplate || isConcatenation) found.push(`${where(file, node)} ${node.getText()}`)
      }
    }
    expect(found).toEqual([])
  })
})

describe('references', () => {
  it('no file points at design documents outside the repository', () => {
    const outside = ['shared', 'docs'].join('/')
    const found = files
      .filter((file) => TEXT_EXTENSIONS.has(path.posix.extname(file)))
      .filter((file) => file !== 'package-lock.json' && read(file).includes(outside))
    expect(found).toEqual([])
  })
})
