import type { Logger } from 'pino'
import { EXIT } from './cli-io.js'

/** Options of {@link stopWithin}. */
export interface StopWithinOptions {
  /** How long the stop may take. */
  timeoutMs: number
  log: Logger
  /** Closes everything the command opened. */
  stop(): Promise<void>
  /** Ends the process; `process.exit` unless a test watches it. */
  exit?: (code: number) => void
}

/**
 * Runs `stop`, and exits the process with EXIT.forcedStop when it has not ended within
 * `timeoutMs`: a closing connection may wait for a server that is away (ioredis keeps QUIT until
 * Redis returns), and an operator's first Ctrl-C must end the process all the same. The deadline
 * holds until the process exits, not until `stop` settles: a stop that failed, or a handle left
 * open after it, must not keep the process alive either. The timer itself keeps nothing alive.
 */
export async function stopWithin(o: StopWithinOptions): Promise<void> {
  const exit = o.exit ?? ((code: number) => process.exit(code))
  const timer = setTimeout(() => {
    o.log.error({ timeoutMs: o.timeoutMs }, 'stop timed out; exiting without finishing it')
    exit(EXIT.forcedStop)
  }, o.timeoutMs)
  timer.unref()
  await o.stop()
}
