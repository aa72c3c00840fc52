import type { Suspension } from '@weave/spec'

/** What the worker tracks about a run while the kernel executes it in this process. */
export interface Flight {
  tenant: string
  /** The job whose lease on the run this execution holds (`runs.lease_job`). */
  jobId: string
  controller: AbortController
  /** Suspensions reported by steps, in order; the last one explains a yield. */
  suspensions: Suspension[]
  /** When each step in progress started (`performance.now()`), by kernel run id and seq. */
  stepStarts: Map<string, number>
}

/** Why a run was aborted by its worker rather than by a user's cancel. */
export const SHUTDOWN = Symbol('worker shutting down')

/** The runs this process is executing, by root run id. */
export class Inflight {
  readonly #flights = new Map<string, { flight: Flight; ended: Promise<void>; end(): void }>()

  /**
   * Starts tracking a run, once no earlier execution of it in this process is in flight: a job
   * that took the run's lease over waits for the one it replaced to stop (that one notices the
   * lost lease at its next step boundary), so hooks always see the flight of the running one.
   */
  async begin(runId: string, tenant: string, jobId: string): Promise<Flight> {
    for (let earlier = this.#flights.get(runId); earlier; earlier = this.#flights.get(runId)) {
      await earlier.ended
    }
    const flight: Flight = {
      tenant,
      jobId,
      controller: new AbortController(),
      suspensions: [],
      stepStarts: new Map(),
    }
    let end: () => void = () => undefined
    const ended = new Promise<void>((resolve) => {
      end = resolve
    })
    this.#flights.set(runId, { flight, ended, end })
    return flight
  }

  /** Stops tracking a run's flight. */
  end(runId: string, flight: Flight): void {
    const entry = this.#flights.get(runId)
    if (entry?.flight !== flight) return
    this.#flights.delete(runId)
    entry.end()
  }

  /** The flight of a kernel run id; nested runs (`<root>/<step>`) belong to their root. */
  of(kernelRunId: string): Flight | undefined {
    return this.#flights.get(rootRunId(kernelRunId))?.flight
  }

  /** Asks every run to stop at its next step boundary. */
  abortAll(): void {
    for (const { flight } of this.#flights.values()) flight.controller.abort(SHUTDOWN)
  }

  get size(): number {
    return this.#flights.size
  }
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
