import { EXIT, type CliIo } from '../cli-io.js'

/** Reports that a command exists but is not part of this build yet; exit status 1. */
export function notYetAvailable(command: string, io: CliIo): number {
  io.stderr(`weave ${command}: not available yet in this build\n`)
  return EXIT.failure
}
