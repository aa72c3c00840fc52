import type { AgentEvent } from '@weave/spec'
/** What the worker tracks about a run while the kernel executes it in this process. */
export interface Flight {
  tenant: string
  /** The root run. */
  runId: string
  /** The job whose claim on the run this execution holds (`runs.lease_job`). */
  jobId: string
  /** The claim's fencing token (`runs.lease_token`): every checkpoint write presents it. */
  leaseToken: string
  /** Aborted to stop the run at its next step boundary; a step in flight is not abandoned. */
  controller: AbortController
  /** Why the run must stop at the next step boundary, once something asked it to. */
  stopRequested: StopRequest | null
  /** The settled approval the resume names (an approval step may complete with it). */
  approvalId: string | null
  /** The approval each kernel run's current step completes with, marked used in its checkpoint. */
  usedApprovals: Map<string, string>
  /** The step each kernel run (root or nested) is executing, with its seq. */
  currentSteps: Map<string, { step: string; seq: number }>
  /** Steps whose after-hooks ran (`<kernel run>#<seq>`): their checkpoint is not a failure. */
  finishedSteps: Set<string>
  /** When each step in progress started (`performance.now()`), by `<kernel run>#<seq>`. */
  stepStarts: Map<string, number>
  /** The first-attempt seq of a step being retried, by kernel run (from its failed checkpoint). */
  attemptSeqs: Map<string, number>
  /** What a step did (an agent's unit of work), by `<kernel run>#<seq>`, written with its checkpoint. */
  stepEvents: Map<string, AgentEvent[]>
  /** When Postgres last confirmed this claim (`performance.now()`): a write or a renewal. */
  confirmedAt: number
  /** Steps of the root run this execution started: the run's `steps` grow by it when it ends. */
  rootStepsStarted: number
  /** The last step's checkpoint write completed the run (weave_save_step): nothing is left to end. */
  completedWithCheckpoint: boolean
}

/** Why a run stops at its next step boundary without a verdict of the graph. */
export type StopRequest = 'shutdown' | 'cancelled'

/** The key of one step execution of a kernel run. */
export function stepKey(kernelRunId: string, seq: number): string {
  return `${kernelRunId}#${seq}`
}

/** The runs this process is executing, by root run id. */
export class Inflight {
  readonly #flights = new Map<string, { flight: Flight; ended: Promise<void>; end(): void }>()

  /**
   * Starts tracking a run, once no earlier execution of it in this process is in flight: a job
   * that took the run's claim over waits for the one it replaced to stop (that one is fenced at
   * its next checkpoint), so hooks always see the flight of the running one.
   */
  async begin(
    claim: Pick<Flight, 'tenant' | 'runId' | 'jobId' | 'leaseToken' | 'approvalId'>,
  ): Promise<Flight> {
    const { runId } = claim
    for (let earlier = this.#flights.get(runId); earlier; earlier = this.#flights.get(runId)) {
      await earlier.ended
    }
    const flight: Flight = {
      ...claim,
      controller: new AbortController(),
      stopRequested: null,
      usedApprovals: new Map(),
      currentSteps: new Map(),
      finishedSteps: new Set(),
      stepEvents: new Map(),
      stepStarts: new Map(),
      attemptSeqs: new Map(),
      confirmedAt: performance.now(),
      rootStepsStarted: 0,
      completedWithCheckpoint: false,
    }
    let end: () => void = () => undefined
    const ended = new Promise<void>((resolve) => {
      end = resolve
    })
    this.#flights.set(runId, { flight, ended, end })
    return flight
  }

  /** Stops tracking a run's flight. */
  end(flight: Flight): void {
    const entry = this.#flights.get(flight.runId)
    if (entry?.flight !== flight) return
    this.#flights.delete(flight.runId)
    entry.end()
  }

  /** The flight of a kernel run id; nested runs (`<root>/<step>`) belong to their root. */
  of(kernelRunId: string): Flight | undefined {
    return this.#flights.get(rootRunId(kernelRunId))?.flight
  }

  /** Asks every run to stop at its next step boundary, letting steps in flight finish. */
  stopAll(): void {
    for (const { flight } of this.#flights.values()) requestStop(flight, 'shutdown')
  }

  /** Aborts the steps still in flight (their outside calls too): the bounded shutdown is over. */
  abortAll(): void {
    for (const { flight } of this.#flights.values()) flight.controller.abort('shutdown')
  }

  /** Resolves once no run is in flight. */
  async drained(): Promise<void> {
    for (const { ended } of [...this.#flights.values()]) await ended
  }

  get size(): number {
    return this.#flights.size
  }
}

/** Asks a run to stop at its next step boundary; the first reason asked for wins. */
export function requestStop(flight: Flight, reason: StopRequest): void {
  flight.stopRequested ??= reason
}

/** The root run id of a kernel run id (`<root>/<step>/...`). */
export function rootRunId(kernelRunId: string): string {
  const slash = kernelRunId.indexOf('/')
  return slash < 0 ? kernelRunId : kernelRunId.slice(0, slash)
}

/** A step's path from the root run: `review/approve` for step `approve` of child run `<root>/review`. */
export function stepPath(kernelRunId: string, step: string): string {
  const slash = kernelRunId.indexOf('/')
  return slash < 0 ? step : `${kernelRunId.slice(slash + 1)}/${step}`
}
