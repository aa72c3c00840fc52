import { readFile } from 'node:fs/promises'
import { WeaveProblemError, type GraphSpec, type WeaveClient } from '@weave/client'
import { EXIT, UsageError, type Command } from '../cli-io.js'
import { onePositional, operate, parseCommand, printJson, clientFor } from '../operator.js'
import { GRAPHS_USAGE } from '../operator-usage.js'

/** `weave graphs push <file>`: registers a graph and shows how it differs from the latest. */
export const graphsCommand: Command = async (args, io) => {
  const [subcommand, ...rest] = args
  const { values, positionals } = parseCommand(rest, {
    name: { type: 'string' },
    description: { type: 'string' },
  })
  if (subcommand === undefined || subcommand === '--help' || subcommand === '-h' || values.help) {
    io.stdout(GRAPHS_USAGE)
    return subcommand === undefined ? EXIT.usage : EXIT.ok
  }
  if (subcommand !== 'push') throw new UsageError(`unknown subcommand "${subcommand}"`)
  const file = onePositional(positionals, 'graph file')
  const registration = await readRegistration(file, values.name, values.description)
  const weave = clientFor(values, io)
  return operate('graphs push', io, async () => {
    const before = await latestSpec(weave, registration.name)
    const registered = await weave.graphs.register(registration.name, registration.spec, {
      ...(registration.description === undefined ? {} : { description: registration.description }),
    })
    const after = registered.created
      ? (await weave.graphs.version(registered.name, registered.version)).spec
      : before?.spec
    const changes = before === undefined || after === undefined ? [] : diff(before.spec, after)
    if (values.json) {
      printJson(io, { ...registered, previousVersion: before?.version ?? null, changes })
      return EXIT.ok
    }
    const what = registered.created
      ? before === undefined
        ? 'registered'
        : `registered, replacing version ${before.version}`
      : 'unchanged: the latest version has this spec'
    io.stdout(
      `${registered.name} version ${registered.version} ${what}\ndigest ${registered.digest}\n`,
    )
    for (const change of changes) io.stdout(`  ${change}\n`)
    return EXIT.ok
  })
}

interface Registration {
  name: string
  spec: GraphSpec
  description?: string
}

/**
 * The registration in `file`: a `POST /v1/graphs` body (`{ name, spec, description? }`), or a
 * bare spec (`{ entry, steps }`) named by `--name`. `--name` and `--description` win.
 */
async function readRegistration(
  file: string,
  name: string | undefined,
  description: string | undefined,
): Promise<Registration> {
  let document: unknown
  try {
    document = JSON.parse(await readFile(file, 'utf8'))
  } catch (error) {
    throw new UsageError(`${file}: ${(error as Error).message}`)
  }
  if (typeof document !== 'object' || document === null || Array.isArray(document)) {
    throw new UsageError(`${file}: not a JSON object`)
  }
  const body = document as Record<string, unknown>
  const isBody = typeof body.spec === 'object' && body.spec !== null
  const chosenName = name ?? (isBody && typeof body.name === 'string' ? body.name : undefined)
  if (chosenName === undefined) {
    throw new UsageError(`${file} is a bare spec: name the graph with --name`)
  }
  const chosenDescription =
    description ?? (isBody && typeof body.description === 'string' ? body.description : undefined)
  return {
    name: chosenName,
    spec: (isBody ? body.spec : body) as GraphSpec,
    ...(chosenDescription === undefined ? {} : { description: chosenDescription }),
  }
}

/** The latest version's spec, or undefined when no graph has that name yet. */
async function latestSpec(weave: WeaveClient, name: string) {
  try {
    const graph = await weave.graphs.get(name)
    return { version: graph.latest.version, spec: graph.latest.spec }
  } catch (error) {
    if (error instanceof WeaveProblemError && error.status === 404) return undefined
    throw error
  }
}

/**
 * What changed from `before` to `after`, one line per JSON path: `+` added, `-` removed, `~`
 * changed (with both values when they are short).
 */
export function diff(before: unknown, after: unknown, path = ''): string[] {
  if (isObject(before) && isObject(after)) {
    const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort()
    return keys.flatMap((key) => {
      const at = `${path}/${key.replaceAll('~', '~0').replaceAll('/', '~1')}`
      if (!(key in after)) return [`- ${at}`]
      if (!(key in before)) return [`+ ${at}`]
      return diff(before[key], after[key], at)
    })
  }
  if (JSON.stringify(before) === JSON.stringify(after)) return []
  const was = JSON.stringify(before)
  const now = JSON.stringify(after)
  return [was.length + now.length <= 80 ? `~ ${path || '/'}: ${was} -> ${now}` : `~ ${path || '/'}`]
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
