import { mkdir, readFile, writeFile } from 'node:fs/promises'
import { dirname, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { renderOpenApiDocument } from '../src/openapi-document.js'

// Writes openapi/openapi.json from the route schemas; with --check, fails when it is stale.
const target = fileURLToPath(new URL('../../../openapi/openapi.json', import.meta.url))
const shown = relative(process.cwd(), target)
const isCheck = process.argv.slice(2).includes('--check')

const document = await renderOpenApiDocument()
if (isCheck) {
  const committed = await readFile(target, 'utf8').catch(() => undefined)
  if (committed === document) {
    console.log(`${shown} is up to date`)
  } else {
    console.error(
      `${shown} ${committed === undefined ? 'is missing' : 'differs from the route schemas'}; ` +
        'run `npm run openapi:generate` and commit the result',
    )
    process.exitCode = 1
  }
} else {
  await mkdir(dirname(target), { recursive: true })
  await writeFile(target, document)
  console.log(`wrote ${shown}`)
}
