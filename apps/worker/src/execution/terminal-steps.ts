import { END, type Graph } from '@weave/kernel'

const cache = new WeakMap<Graph, ReadonlySet<string>>()

/**
 * The steps after which `graph` routes nowhere, whatever the state: those without a router, and
 * those whose router can only end the run (`end()`, `always(END)`). A `step_done` checkpoint of
 * one of them is the run's last write: the kernel completes the run next, with nothing left to
 * decide or to fail on. Routers that evaluate anything (branches, conditions, an agent's loop,
 * custom functions) are left out even when every edge ends, as evaluating them may throw.
 */
export function terminalSteps(graph: Graph): ReadonlySet<string> {
  let steps = cache.get(graph)
  if (!steps) {
    steps = new Set(
      graph
        .topology()
        .filter(
          ({ edges, dynamic }) =>
            !dynamic &&
            (edges.length === 0 ||
              (edges.length === 1 && edges[0]!.to === END && edges[0]!.label === undefined)),
        )
        .map(({ name }) => name),
    )
    cache.set(graph, steps)
  }
  return steps
}
