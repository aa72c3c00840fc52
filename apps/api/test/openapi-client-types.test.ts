import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { basename, join } from 'node:path'
import openapiTS, { astToString } from 'openapi-typescript'
import ts from 'typescript'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

// A client generated from the committed document, as any user of openapi-typescript would, must
// type a graph spec: a step of an unknown kind is a compile error, not `unknown`.
const DOCUMENT = new URL('../../../openapi/openapi.json', import.meta.url)

const CLIENT_CODE = `
import type { components } from './api.js'

type RegisterGraphBody = components['schemas']['RegisterGraphBody']

export const refunds: RegisterGraphBody = {
  name: 'refunds',
  spec: {
    entry: 'classify',
    steps: {
      classify: {
        kind: 'set',
        values: { risk: "amount > 100 ? 'high' : 'low'" },
        next: { branch: 'risk', routes: { high: 'review' }, default: null },
      },
      review: { kind: 'approval', title: 'Refund {{ amount }}?' },
    },
  },
}
`

const WRONG_KIND = `
import type { components } from './api.js'

export const wrong: components['schemas']['GraphSpec'] = {
  entry: 'start',
  steps: { start: { kind: 'sett', values: {} } },
}
`

let dir: string
let diagnostics: { file: string; message: string }[]

describe('a client generated with openapi-typescript', () => {
  // One strict program over the generated types and three files using them: generating and
  // type-checking take seconds, so they run once.
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'weave-client-types-'))
    const document = JSON.parse(await readFile(DOCUMENT, 'utf8')) as object
    const files: Record<string, string> = {
      'api.ts': astToString(await openapiTS(document as never)),
      'client.ts': CLIENT_CODE,
      'wrong.ts': WRONG_KIND,
      'expected.ts': WRONG_KIND.replace(
        'steps: {',
        '// @ts-expect-error: there is no step kind `sett`\n  steps: {',
      ),
    }
    await writeFile(join(dir, 'package.json'), '{ "type": "module" }\n')
    for (const [name, text] of Object.entries(files)) await writeFile(join(dir, name), text)
    const program = ts.createProgram(
      Object.keys(files).map((name) => join(dir, name)),
      {
        strict: true,
        noEmit: true,
        skipLibCheck: true,
        target: ts.ScriptTarget.ES2022,
        module: ts.ModuleKind.NodeNext,
        moduleResolution: ts.ModuleResolutionKind.NodeNext,
        types: [],
      },
    )
    diagnostics = ts.getPreEmitDiagnostics(program).map((d) => ({
      file: basename(d.file?.fileName ?? ''),
      message: ts.flattenDiagnosticMessageText(d.messageText, '\n'),
    }))
  }, 120_000)
  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true })
  })

  it('compiles the generated types and a graph registration with typed steps', () => {
    const others = diagnostics.filter(({ file }) => file !== 'wrong.ts')
    expect(others, JSON.stringify(others)).toEqual([])
  })

  it('refuses a step of an unknown kind', () => {
    const wrong = diagnostics.filter(({ file }) => file === 'wrong.ts')
    expect(wrong).toHaveLength(1)
    expect(wrong[0]!.message).toContain('"sett"')
  })
})
