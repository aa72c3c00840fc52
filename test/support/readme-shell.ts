import { spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { ROOT, stopWatched, type Watched } from './child-processes.js'
import { waitUntil } from './wait-until.js'

// Running the README's commands as written: its fenced blocks, read from the file, and a bash
// session that plays one of the reader's terminals.

/** A fenced code block: its language (`sh`, `json`, ...) and its text. */
export interface FencedBlock {
  lang: string
  code: string
}

/**
 * The text of the README section under `heading` (a whole `## ` line), up to the next one.
 * @throws Error when the README has no such heading
 */
export function readmeSection(readme: string, heading: string): string {
  const start = readme.indexOf(`\n${heading}\n`)
  if (start < 0) throw new Error(`the README has no section "${heading}"`)
  const next = readme.indexOf('\n## ', start + heading.length + 2)
  return readme.slice(start, next < 0 ? undefined : next)
}

/** The fenced blocks of a text, in order. */
export function fencedBlocks(text: string): FencedBlock[] {
  return [...text.matchAll(/^```(\w*)\n([\s\S]*?)^```$/gm)].map((m) => ({
    lang: m[1]!,
    code: m[2]!,
  }))
}

/**
 * The JSON values a command printed one after another (as `jq` prints them).
 * @throws SyntaxError when the text is anything else
 */
export function jsonValues(text: string): unknown[] {
  const values: unknown[] = []
  let rest = text.trim()
  while (rest !== '') {
    // The shortest prefix that parses, ending at a closing bracket or a line end, is the value.
    let parsed = false
    for (let end = 1; end <= rest.length && !parsed; end++) {
      const c = rest[end - 1]
      if (end < rest.length && c !== '}' && c !== ']' && rest[end] !== '\n') continue
      try {
        values.push(JSON.parse(rest.slice(0, end)))
        rest = rest.slice(end).trim()
        parsed = true
      } catch {
        // not a whole value yet
      }
    }
    if (!parsed) throw new SyntaxError(`not a sequence of JSON values: ${rest.slice(0, 200)}`)
  }
  return values
}

/** What a block printed, and the status of its last command. */
export interface ShellResult {
  status: number
  stdout: string
  stderr: string
}

/** A bash session: the variables one block sets are there for the next, as in a terminal. */
export interface Shell {
  /**
   * Runs `script` as if typed in, and resolves once it is done.
   * @throws Error when it is not done within `timeoutMs`, or the shell exited
   */
  run(script: string, timeoutMs?: number): Promise<ShellResult>
  close(): Promise<void>
}

/** Starts bash (no profile, no rc file) in the repository's root with `env`. */
export function startShell(env: NodeJS.ProcessEnv): Shell {
  const bash = spawn('bash', ['--noprofile', '--norc'], {
    cwd: ROOT,
    env,
    stdio: ['pipe', 'pipe', 'pipe'],
    detached: true,
  })
  let stdout = ''
  let stderr = ''
  bash.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()))
  bash.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
  const watched: Watched = { child: bash, output: () => `${stdout}${stderr}` }
  let queue = Promise.resolve()

  async function run(script: string, timeoutMs = 60_000): Promise<ShellResult> {
    // A marker after the block, on both streams, tells where its output ends.
    const marker = `__block_done_${randomBytes(6).toString('hex')}`
    const outFrom = stdout.length
    const errFrom = stderr.length
    bash.stdin.write(`${script}\nprintf '\\n${marker} %d\\n' $?; printf '${marker}\\n' >&2\n`)
    const done = new RegExp(`\\n${marker} (\\d+)\\n`)
    await waitUntil(
      () => {
        if (bash.exitCode !== null || bash.signalCode !== null) {
          throw new Error(`the shell exited: ${watched.output()}`)
        }
        return done.test(stdout.slice(outFrom)) && stderr.includes(`${marker}\n`, errFrom)
      },
      timeoutMs,
      () => `the block to finish:\n${script}\nit printed: ${stdout.slice(outFrom)}`,
    )
    const out = stdout.slice(outFrom)
    const match = done.exec(out)!
    return {
      status: Number(match[1]),
      stdout: out.slice(0, match.index),
      stderr: stderr.slice(errFrom, stderr.indexOf(`${marker}\n`, errFrom)),
    }
  }

  return {
    run(script, timeoutMs) {
      // One block at a time, as typed into one terminal.
      const result = queue.then(() => run(script, timeoutMs))
      queue = result.then(
        () => undefined,
        () => undefined,
      )
      return result
    },
    async close() {
      bash.stdin.end()
      await stopWatched(watched)
    },
  }
}
