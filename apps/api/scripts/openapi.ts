import { mkdir, readFile, writeFile } from 'node:fs/promises'
import { dirname, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { graphRegistrationJsonSchema, graphSpecJsonSchema } from '../src/graph-spec-schema.js'
import { renderOpenApiDocument } from '../src/openapi-document.js'

// Writes openapi/openapi.json from the route schemas, and the graph spec's JSON Schemas beside it
// from @weave/spec's zod schema; with --check, fails when any of them is stale.
const isCheck = process.argv.slice(2).includes('--check')

const asText = (schema: Record<string, unknown>) => `${JSON.stringify(schema, null, 2)}\n`
const files: [string, string][] = [
  ['openapi.json', await renderOpenApiDocument()],
  ['graph-spec.schema.json', asText(graphSpecJsonSchema())],
  ['graph-registration.schema.json', asText(graphRegistrationJsonSchema())],
]

for (const [name, text] of files) {
  const target = fileURLToPath(new URL(`../../../openapi/${name}`, import.meta.url))
  const shown = relative(process.cwd(), target)
  if (isCheck) {
    const committed = await readFile(target, 'utf8').catch(() => undefined)
    if (committed === text) {
      console.log(`${shown} is up to date`)
    } else {
      console.error(
        `${shown} ${committed === undefined ? 'is missing' : 'differs from the schemas it is generated from'}; ` +
          'run `npm run openapi:generate` and commit the result',
      )
      process.exitCode = 1
    }
  } else {
    await mkdir(dirname(target), { recursive: true })
    await writeFile(target, text)
    console.log(`wrote ${shown}`)
  }
}
