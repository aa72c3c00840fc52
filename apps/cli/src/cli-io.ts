/** Where a command writes, and the environment it reads configuration from. */
export interface CliIo {
  stdout(text: string): void
  stderr(text: string): void
  /** The environment configuration is read from. */
  env: NodeJS.ProcessEnv
}

/** A command. Resolves to the process exit status. */
export type Command = (args: string[], io: CliIo) => Promise<number>

/**
 * Exit statuses of `weave`: `forcedStop` when a stop did not finish within WEAVE_STOP_TIMEOUT_MS
 * and the process ended without closing everything.
 */
export const EXIT = { ok: 0, failure: 1, usage: 2, forcedStop: 3 } as const

/** The command line is wrong; `weave` prints the message and exits with status 2. */
export class UsageError extends Error {
  override name = 'UsageError'
}
