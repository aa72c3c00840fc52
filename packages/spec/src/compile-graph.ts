import { Graph } from '@weave/kernel'
import type { CompileDeps } from './compile-deps.js'
import { SpecCompileError } from './errors.js'
import { GraphSpec } from './graph-spec.js'
import { createEgressPolicy } from './http/egress.js'
import { buildMergeConfig } from './merge-config.js'
import { compileRouter } from './routing.js'
import { compileStep } from './steps/compile-step.js'
import type { StepCompileContext } from './steps/step-compiler.js'
import { specTopology, type Topology } from './topology.js'
import { routeProblems } from './validate-routes.js'
import { zodIssuesToProblems } from './zod-problems.js'

/** A spec compiled into a kernel graph, with the topology read from the spec. */
export interface CompiledGraph {
  graph: Graph
  spec: GraphSpec
  topology: Topology
}

/**
 * Compiles a spec into a kernel Graph named `name`: every expression and template parsed once,
 * subgraphs loaded once, limits/history/merge mapped to GraphOptions. Compile once per
 * (graph, version) and reuse it for every run.
 * @throws SpecCompileError when the spec does not parse or route correctly, or a subgraph
 *   cannot be loaded.
 * @throws TypeError when `deps.http.allow` has an unparsable entry.
 * @throws GraphValidationError (kernel) when the kernel rejects the graph.
 */
export async function compileGraph(
  name: string,
  spec: GraphSpec,
  deps: CompileDeps = {},
): Promise<CompiledGraph> {
  const parsed = GraphSpec.safeParse(spec, { reportInput: true })
  if (!parsed.success) throw new SpecCompileError(zodIssuesToProblems(parsed.error.issues))
  const s = parsed.data
  const structural = routeProblems(s)
  if (structural.length > 0) throw new SpecCompileError(structural)
  const graph = new Graph(name, s.entry, {
    maxIterations: s.limits?.maxIterations,
    stepBudget: s.limits?.stepBudget,
    checkpointHistory: s.history,
    merge: s.merge === undefined ? undefined : buildMergeConfig(s.merge),
    checkpointPolicy: deps.checkpointPolicy,
    hooks: deps.hooks,
  })
  const limits = deps.expressionLimits ?? {}
  const cx: StepCompileContext = {
    deps,
    limits,
    now: deps.now ?? (() => new Date()),
    egress: createEgressPolicy(deps.http?.allow ?? [], deps.http?.lookup),
    suspend: async (suspension) => {
      await deps.onSuspend?.(suspension)
    },
  }
  for (const [stepName, step] of Object.entries(s.steps)) {
    graph.addStep(stepName, await compileStep(stepName, step, cx), compileRouter(step.next, limits))
  }
  graph.validate()
  return { graph, spec: s, topology: specTopology(s) }
}
