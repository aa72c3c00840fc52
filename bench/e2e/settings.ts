/** How long and how hard each scenario drives Weave. */
export interface Settings {
  /** `weave worker` processes started. */
  workers: number
  /** WEAVE_WORKER_CONCURRENCY of each worker: runs one worker executes at once. */
  workerConcurrency: number
  /** Concurrent clients in the throughput scenario (each starts a run and waits for it). */
  clients: number
  /** Warm-up before the throughput measurements, in milliseconds (discarded). */
  warmupMs: number
  /** Measured time with `clients` clients, in milliseconds. */
  throughputMs: number
  /** Measured time with one client, in milliseconds. */
  singleMs: number
  /** Runs decided `approvalConcurrency` at a time in the approval scenario. */
  approvalRuns: number
  /** Runs decided one at a time in the approval scenario. */
  approvalSerialRuns: number
  /** Runs started, and decisions in flight, at once in the approval scenario. */
  approvalConcurrency: number
  /** Pause between two GETs of one run while waiting for its status, in milliseconds. */
  pollMs: number
  /** Rounds of the throughput phases; each round runs every target's phases, interleaved. */
  rounds: number
  /** Scenario 3: GETs of a completed run sent for this long per round, in milliseconds. */
  kindGetMs: number
  /** Scenario 3: starts sent for this long per round (their runs then complete), in ms. */
  kindStartMs: number
  /** When set, Weave's and the floor's processes write V8 CPU profiles into this directory. */
  cpuProfileDir?: string
  quick: boolean
}

const USAGE =
  'usage: e2e/run.ts [--quick] [--workers N] [--worker-concurrency N] [--clients N] [--seconds S] [--rounds N] [--cpu-prof DIR]'

function positiveInteger(flag: string, value: string | undefined): number {
  const n = Number(value)
  if (!Number.isInteger(n) || n < 1) throw new Error(`${flag} takes an integer ≥ 1\n${USAGE}`)
  return n
}

/**
 * Reads the command-line flags.
 * @throws Error with the usage line for an unknown flag or a bad value
 */
export function parseArgs(argv: readonly string[]): Settings {
  const quick = argv.includes('--quick')
  const s: Settings = quick
    ? {
        workers: 1,
        workerConcurrency: 32,
        clients: 16,
        warmupMs: 1000,
        throughputMs: 3000,
        singleMs: 2000,
        approvalRuns: 32,
        approvalSerialRuns: 8,
        approvalConcurrency: 16,
        pollMs: 10,
        rounds: 1,
        kindGetMs: 2000,
        kindStartMs: 1500,
        quick,
      }
    : {
        workers: 1,
        workerConcurrency: 32,
        clients: 16,
        warmupMs: 5000,
        throughputMs: 15_000,
        singleMs: 8_000,
        approvalRuns: 200,
        approvalSerialRuns: 50,
        approvalConcurrency: 16,
        pollMs: 10,
        rounds: 2,
        kindGetMs: 5000,
        kindStartMs: 3000,
        quick,
      }
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]
    if (arg === '--quick') continue
    else if (arg === '--workers') s.workers = positiveInteger(arg, argv[++i])
    else if (arg === '--worker-concurrency') s.workerConcurrency = positiveInteger(arg, argv[++i])
    else if (arg === '--clients') s.clients = positiveInteger(arg, argv[++i])
    else if (arg === '--seconds') s.throughputMs = positiveInteger(arg, argv[++i]) * 1000
    else if (arg === '--rounds') s.rounds = positiveInteger(arg, argv[++i])
    else if (arg === '--cpu-prof') {
      const dir = argv[++i]
      if (dir === undefined) throw new Error(`--cpu-prof takes a directory\n${USAGE}`)
      s.cpuProfileDir = dir
    } else throw new Error(`unknown argument ${arg}\n${USAGE}`)
  }
  return s
}
