import { parseArgs } from 'node:util'
import { UsageError } from './cli-io.js'

/**
 * Parses the arguments of a command that takes none but `--help`.
 * @returns true when help was asked for
 * @throws UsageError for anything else
 */
export function rejectArguments(args: string[]): boolean {
  try {
    const { values } = parseArgs({
      args,
      options: { help: { type: 'boolean', short: 'h' } },
      allowPositionals: false,
      strict: true,
    })
    return values.help === true
  } catch (error) {
    throw new UsageError((error as Error).message)
  }
}
