import type { Suspension } from '@weave/spec'

/** What the worker tracks about a run while the kernel executes it in this process. */
export interface Flight {
  tenant: string
  controller: AbortController
  /** Suspensions reported by steps, in order; the last one explains a yield. */
  suspensions: Suspension[]
}

/** Why a run was aborted by its worker rather than by a user's cancel. */
export const SHUTDOWN = Symbol('worker shutting down')

/** The runs this process is executing, by root run id. */
export class Inflight {
  readonly #flights = new Map<string, Flight>()

  /** Starts tracking a run. */
  begin(runId: string, tenant: string): Flight {
    const flight: Flight = { tenant, controller: new AbortController(), suspensions: [] }
    this.#flights.set(runId, flight)
    return flight
  }

  /** Stops tracking a run. */
  end(runId: string): void {
    this.#flights.delete(runId)
  }

  /** The flight of a kernel run id; nested runs (`<root>/<step>`) belong to their root. */
  of(kernelRunId: string): Flight | undefined {
    return this.#flights.get(rootRunId(kernelRunId))
  }

  /** Asks every run to stop at its next step boundary. */
  abortAll(): void {
    for (const f of this.#flights.values()) f.controller.abort(SHUTDOWN)
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
