import { parseArgs, type ParseArgsConfig } from 'node:util'
import { createWeaveClient, WeaveProblemError, type WeaveClient } from '@weave/client'
import { EXIT, UsageError, type CliIo, type Command } from './cli-io.js'
import { DEFAULT_WEAVE_URL, operatorEnv } from './config.js'

// What the operator commands share: the connection options, the client, tables for people and
// JSON for scripts, and problems printed as one line.

/** The options every operator command takes. */
export const CONNECTION_OPTIONS = {
  url: { type: 'string' },
  token: { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const satisfies ParseArgsConfig['options']

/** The connection options' part of a command's usage. */
export const CONNECTION_USAGE = `
  --url <url>          Weave's API (default: WEAVE_URL, else ${DEFAULT_WEAVE_URL})
  --token <token>      a bearer token (default: WEAVE_TOKEN)
  --json               print JSON for scripts instead of a table
`

/** Parses a command's arguments. @throws UsageError for unknown or malformed ones */
export function parseCommand<O extends NonNullable<ParseArgsConfig['options']>>(
  args: string[],
  options: O,
) {
  try {
    return parseArgs({
      args,
      options: { ...CONNECTION_OPTIONS, ...options },
      allowPositionals: true,
      strict: true,
    })
  } catch (error) {
    throw new UsageError((error as Error).message)
  }
}

/** The options a command declares beyond the connection options. */
type CommandOptions = NonNullable<ParseArgsConfig['options']>

/** The values parsed for a command declaring `O`, the connection options included. */
export type OperatorValues<O extends CommandOptions> = ReturnType<typeof parseCommand<O>>['values']

/** What a subcommand's body is given. */
export interface OperatorContext<O extends CommandOptions> {
  /** The subcommand as typed: tells apart the names that share a body (`approve`, `reject`). */
  subcommand: string
  values: OperatorValues<O>
  positionals: string[]
  weave: WeaveClient
  io: CliIo
}

/** A subcommand's body. Resolves to the exit status; throws UsageError for a wrong command line. */
export type Subcommand<O extends CommandOptions> = (context: OperatorContext<O>) => Promise<number>

/** An operator command: its name, usage, options and subcommands. */
export interface OperatorCommandSpec<O extends CommandOptions, S extends string> {
  /** The command's name, as typed after `weave` and printed before its problems. */
  name: string
  usage: string
  options: O
  subcommands: Record<S, Subcommand<O>>
  /** Further names of a subcommand, whose body is told which name was typed. */
  aliases?: Record<string, NoInfer<S>>
}

/**
 * An operator command (`weave <name> <subcommand> [options]`). Without a subcommand it prints
 * the usage and exits 2; with `--help` or `-h`, it prints it and exits 0. Otherwise it connects
 * and runs the subcommand's body under {@link operate}. The command throws UsageError for
 * malformed options, a missing token or an unknown subcommand.
 */
export function operatorCommand<O extends CommandOptions, S extends string>(
  spec: OperatorCommandSpec<O, S>,
): Command {
  const bodies = new Map<string, Subcommand<O>>(Object.entries(spec.subcommands))
  for (const [alias, name] of Object.entries(spec.aliases ?? {})) {
    bodies.set(alias, spec.subcommands[name])
  }
  return async (args, io) => {
    const [subcommand, ...rest] = args
    const { values, positionals } = parseCommand(rest, spec.options)
    // `--help` is a connection option, which the values' type names only once `O` is known.
    const connection: { help?: boolean } = values
    if (
      subcommand === undefined ||
      subcommand === '--help' ||
      subcommand === '-h' ||
      connection.help
    ) {
      io.stdout(spec.usage)
      return subcommand === undefined ? EXIT.usage : EXIT.ok
    }
    const weave = clientFor(values, io)
    return operate(`${spec.name} ${subcommand}`, io, async () => {
      const body = bodies.get(subcommand)
      if (body === undefined) throw new UsageError(`unknown subcommand "${subcommand}"`)
      return body({ subcommand, values, positionals, weave, io })
    })
  }
}

/**
 * `value` when it is one of `allowed` or is `besides` (a word meaning none of them, like `all`);
 * undefined when `value` is.
 * @throws UsageError naming `option` and what it may be
 */
export function oneOf<T extends string, B extends string = never>(
  value: string,
  allowed: readonly T[],
  option: string,
  besides?: B,
): T | B
export function oneOf<T extends string, B extends string = never>(
  value: string | undefined,
  allowed: readonly T[],
  option: string,
  besides?: B,
): T | B | undefined
export function oneOf<T extends string, B extends string>(
  value: string | undefined,
  allowed: readonly T[],
  option: string,
  besides?: B,
): T | B | undefined {
  if (value === undefined || value === besides || (allowed as readonly string[]).includes(value)) {
    return value as T | B | undefined
  }
  const others = besides === undefined ? '' : `${besides} or `
  throw new UsageError(`${option} must be ${others}one of ${allowed.join(', ')}`)
}

/** A client of the Weave `--url` or WEAVE_URL names, with `--token` or WEAVE_TOKEN. */
export function clientFor(values: { url?: string; token?: string }, io: CliIo): WeaveClient {
  const env = operatorEnv(io.env)
  const url = values.url ?? env.url ?? DEFAULT_WEAVE_URL
  const token = values.token ?? env.token
  if (!URL.canParse(url)) throw new UsageError(`--url ${url} is not a URL`)
  if (token === undefined || token === '') {
    throw new UsageError('a token is needed: --token <token> or WEAVE_TOKEN')
  }
  return createWeaveClient({ baseUrl: url, token })
}

/**
 * Runs an operator command's `action`: a problem Weave answered is printed as one line on
 * stderr (with each invalid field) and exits 1, as does a Weave that cannot be reached.
 */
export async function operate(
  command: string,
  io: CliIo,
  action: () => Promise<number>,
): Promise<number> {
  try {
    return await action()
  } catch (error) {
    if (error instanceof WeaveProblemError) {
      const fields = error.errors.map((e) => `\n  ${e.path}: ${e.message}`).join('')
      io.stderr(`weave ${command}: ${error.status} ${error.problem}: ${error.detail}${fields}\n`)
      return EXIT.failure
    }
    if (error instanceof TypeError && /fetch failed/.test(error.message)) {
      const cause = (error as { cause?: { message?: string } }).cause?.message
      io.stderr(`weave ${command}: cannot reach Weave: ${cause ?? error.message}\n`)
      return EXIT.failure
    }
    throw error
  }
}

/** Prints `value` as one line of JSON. */
export function printJson(io: CliIo, value: unknown): void {
  io.stdout(`${JSON.stringify(value)}\n`)
}

/** Prints rows under a header, each column as wide as its widest cell. */
export function printTable(io: CliIo, header: string[], rows: string[][]): void {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)))
  const line = (cells: string[]) =>
    cells
      .map((cell, i) => (i === cells.length - 1 ? cell : cell.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd()
  io.stdout(`${[header, ...rows].map(line).join('\n')}\n`)
}

/** Prints `label: value` lines, labels aligned. */
export function printFields(io: CliIo, fields: Array<[string, string]>): void {
  const width = Math.max(...fields.map(([label]) => label.length))
  io.stdout(
    fields.map(([label, value]) => `${`${label}:`.padEnd(width + 2)}${value}`).join('\n') + '\n',
  )
}

/** A cell for a value that may be missing. */
export function cell(value: unknown): string {
  if (value === null || value === undefined || value === '') return '-'
  return typeof value === 'string' ? value : JSON.stringify(value)
}

/** Exactly one positional argument, named `what` in the message when it is missing. */
export function onePositional(positionals: string[], what: string): string {
  if (positionals.length !== 1) throw new UsageError(`give exactly one ${what}`)
  return positionals[0]!
}

/** A JSON object given on the command line (`--input`). @throws UsageError */
export function jsonObject(text: string, option: string): Record<string, unknown> {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    throw new UsageError(`${option} must be a JSON object`)
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new UsageError(`${option} must be a JSON object`)
  }
  return value as Record<string, unknown>
}

/** An integer option of at least `least` (`--limit`, `--seq`). @throws UsageError */
export function positiveInteger(text: string, option: string, least = 1): number {
  if (!/^\d+$/.test(text) || Number(text) < least) {
    throw new UsageError(`${option} must be an integer of at least ${least}`)
  }
  return Number(text)
}
