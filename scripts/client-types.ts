// Writes packages/client/src/openapi-types.ts, the types @weave/client is checked against, from
// openapi/openapi.json; with --check, fails when the committed file is not what the document
// generates now, so the client can never drift from the server.
import { readFile, writeFile } from 'node:fs/promises'
import { relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import openapiTS, { astToString } from 'openapi-typescript'
import prettier from 'prettier'
import ts from 'typescript'

const documentFile = fileURLToPath(new URL('../openapi/openapi.json', import.meta.url))
const target = fileURLToPath(new URL('../packages/client/src/openapi-types.ts', import.meta.url))
const shown = relative(process.cwd(), target)
const isCheck = process.argv.slice(2).includes('--check')

const HEADER = `// Generated from openapi/openapi.json by \`npm run client:generate\`; do not edit.
// \`npm run client:check\` fails when this file is not what the document generates.
`

const document = JSON.parse(await readFile(documentFile, 'utf8'))
// JsonValue refers to itself, which a member of the generated `components` type may not do; a
// top-level alias may, so the schema becomes one.
const JSON_VALUE_ALIAS = `
/** Any JSON value. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue }
`
const ast = await openapiTS(document, {
  exportType: false,
  alphabetize: false,
  // A default is what the server fills in when a request leaves the field out: not required.
  defaultNonNullable: false,
  transform: (_schema, metadata) =>
    metadata.path === '#/components/schemas/JsonValue'
      ? ts.factory.createTypeReferenceNode('JsonValue')
      : undefined,
})
const source = await prettier.format(HEADER + astToString(ast) + JSON_VALUE_ALIAS, {
  ...(await prettier.resolveConfig(target)),
  filepath: target,
})

if (isCheck) {
  const committed = await readFile(target, 'utf8').catch(() => undefined)
  if (committed === source) {
    console.log(`${shown} is up to date`)
  } else {
    console.error(
      `${shown} ${committed === undefined ? 'is missing' : 'differs from openapi/openapi.json'}; ` +
        'run `npm run client:generate` and commit the result',
    )
    process.exitCode = 1
  }
} else {
  await writeFile(target, source)
  console.log(`wrote ${shown}`)
}
