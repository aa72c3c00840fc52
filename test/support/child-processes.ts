import { spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { createServer } from 'node:net'
import { fileURLToPath } from 'node:url'
import { waitUntil } from './wait-until.js'

// Child processes the end-to-end tests start besides Weave's own (the examples' stand-ins, the
// README's commands), and the ports they listen on.

/** The repository's root: the working directory of every command a test runs. */
export const ROOT = fileURLToPath(new URL('../../', import.meta.url))

/** A child process whose stdout and stderr are kept as one text. */
export interface Watched {
  child: ChildProcess
  output(): string
}

/** Keeps what `child` writes (its stdout and stderr must be pipes). */
export function watch(child: ChildProcess): Watched {
  let output = ''
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()))
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()))
  return { child, output: () => output }
}

/** Options of `startWatched`. */
export interface StartWatchedOptions {
  /** Text the process prints once it is ready, or a check that it is. */
  ready: string | (() => Promise<boolean>)
  /** What the process is, for messages. */
  what: string
  env?: NodeJS.ProcessEnv
  timeoutMs?: number
}

/**
 * Starts `command` with `args` in the repository's root, in a process group of its own (so
 * `stopWatched` ends what it starts in turn, such as npm's children), and waits until it is
 * `ready`.
 * @throws Error with the process's output when it exits or stays silent until the deadline;
 *   the process is then stopped.
 */
export async function startWatched(
  command: string,
  args: string[],
  o: StartWatchedOptions,
): Promise<Watched> {
  const watched = watch(
    spawn(command, args, {
      cwd: ROOT,
      env: o.env ?? process.env,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    }),
  )
  try {
    await waitUntil(
      () => {
        if (!isRunning(watched.child)) {
          throw new Error(`${o.what} exited: ${watched.output()}`)
        }
        return typeof o.ready === 'string' ? watched.output().includes(o.ready) : o.ready()
      },
      o.timeoutMs ?? 30_000,
      () => `${o.what} to be ready: ${watched.output()}`,
    )
  } catch (err) {
    await stopWatched(watched)
    throw err
  }
  return watched
}

/** Whether the child has neither exited nor been killed. */
export function isRunning(child: ChildProcess): boolean {
  return child.exitCode === null && child.signalCode === null
}

/**
 * Sends SIGTERM to a process started by `startWatched` and to its process group, SIGKILL after
 * `graceMs`, and waits until every process of the group is gone.
 */
export async function stopWatched(watched: Watched | undefined, graceMs = 15_000): Promise<void> {
  const child = watched?.child
  if (!child || child.pid === undefined) return
  const group = -child.pid
  const signalGroup = (signal: NodeJS.Signals | 0): boolean => {
    try {
      process.kill(group, signal)
      return true
    } catch {
      return false
    }
  }
  if (!signalGroup('SIGTERM')) return
  const timer = setTimeout(() => signalGroup('SIGKILL'), graceMs)
  if (isRunning(child)) await once(child, 'exit')
  // The group outlives its leader while a child (npm's node) is still shutting down. An exited
  // child its reaper has not collected yet still answers signal 0: past the deadline (SIGKILL
  // sent) nothing of the group runs any more, so waiting longer proves nothing.
  await waitUntil(() => !signalGroup(0), graceMs + 5_000, 'the process group to exit')
    .catch(() => undefined)
    .finally(() => clearTimeout(timer))
}

/** Whether nothing listens on 127.0.0.1:`port`. */
export async function isFree(port: number): Promise<boolean> {
  const server = createServer()
  server.listen(port, '127.0.0.1')
  try {
    await once(server, 'listening')
  } catch {
    return false
  }
  server.close()
  await once(server, 'close')
  return true
}

/** A port free on 127.0.0.1 when asked (the system's choice). */
export async function anyFreePort(): Promise<number> {
  const server = createServer()
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const address = server.address()
  server.close()
  await once(server, 'close')
  if (address === null || typeof address === 'string') throw new Error('no port')
  return address.port
}
