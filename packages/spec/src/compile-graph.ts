import { Graph, type Step } from '@weave/kernel'
import type { CompileDeps } from './compile-deps.js'
import { SpecCompileError } from './errors.js'
import { GraphSpec } from './graph-spec.js'
import { approvalRecordKeys } from './client-state.js'
import { createEgressPolicy } from './http/egress.js'
import { buildMergeConfig } from './merge-config.js'
import { compileStep, compileStepRouter } from './steps/compile-step.js'
import type { StepCompileContext } from './steps/step-compiler.js'
import { specTopology, type Topology } from './topology.js'
import { routeProblems } from './validate-routes.js'
import { zodIssuesToProblems } from './zod-problems.js'

// The kernel's maxIterations when a graph sets none (GraphOptions); a server ceiling lowers it.
const KERNEL_MAX_ITERATIONS = 100

/**
 * A graph's own limit, never above the server's ceiling. Without its own, the limit is the
 * lower of `unset` (what the kernel would use: undefined for no limit) and the ceiling.
 */
// The host's wrapper around one step's work (CompileDeps.aroundStep); the step as is without one.
function wrapped(step: Step, around: CompileDeps['aroundStep']): Step {
  if (!around) return step
  return (state, ctx) =>
    around({ graph: ctx.graph, runId: ctx.runId, step: ctx.step, seq: ctx.seq }, async () =>
      step(state, ctx),
    )
}

function capped(
  own: number | undefined,
  ceiling: number | undefined,
  unset?: number,
): number | undefined {
  if (ceiling === undefined) return own
  return Math.min(own ?? unset ?? ceiling, ceiling)
}

/** A spec compiled into a kernel graph, with the topology read from the spec. */
export interface CompiledGraph {
  graph: Graph
  spec: GraphSpec
  topology: Topology
}

/**
 * Compiles a spec into a kernel Graph named `name`: every expression and template parsed once,
 * subgraphs loaded once, limits/history/merge mapped to GraphOptions (limits capped by
 * `deps.maxima`). Compile once per (graph, version) and reuse it for every run.
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
    maxIterations: capped(
      s.limits?.maxIterations,
      deps.maxima?.maxIterations,
      KERNEL_MAX_ITERATIONS,
    ),
    stepBudget: capped(s.limits?.stepBudget, deps.maxima?.stepBudget),
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
    recordKeys: approvalRecordKeys(s),
  }
  for (const [stepName, step] of Object.entries(s.steps)) {
    graph.addStep(
      stepName,
      wrapped(await compileStep(stepName, step, cx), deps.aroundStep),
      compileStepRouter(stepName, step, limits),
    )
  }
  graph.validate()
  return { graph, spec: s, topology: specTopology(s) }
}
