import { approvalRecordProblems } from './client-state.js'
import { GraphSpec, MAX_STEPS } from './graph-spec.js'
import type { SpecProblem } from './problem.js'
import { jsonSchemaProblems } from './validate-json-schemas.js'
import { routeProblems } from './validate-routes.js'
import { subgraphProblems, type ValidateContext } from './validate-subgraphs.js'
import { zodIssuesToProblems } from './zod-problems.js'

/** The outcome of validateSpec: the parsed spec, or every problem found. */
export type ValidationResult =
  { ok: true; spec: GraphSpec } | { ok: false; problems: SpecProblem[] }

function dedupe(problems: SpecProblem[]): SpecProblem[] {
  const seen = new Set<string>()
  return problems.filter((p) => {
    const key = `${p.path}\u0000${p.message}`
    if (seen.has(key)) return false
    seen.add(key)
    return true
  })
}

/**
 * Validates a graph spec document and reports every problem at once, each with its JSON
 * Pointer: schema errors (unknown fields, kinds, bad names), expressions, templates and
 * durations that do not parse, a missing entry, routes to missing steps, unreachable steps,
 * invalid JSON Schemas, steps writing an approval's decision record, and subgraphs naming
 * unknown graphs or forming a cycle. A spec with more than MAX_STEPS steps is refused for that
 * alone, before any other check, so an oversized document cannot hold the event loop.
 * @throws whatever `ctx.resolveGraph` throws.
 */
export async function validateSpec(
  doc: unknown,
  ctx: ValidateContext = {},
): Promise<ValidationResult> {
  const steps = (doc as { steps?: unknown } | null)?.steps
  if (typeof steps === 'object' && steps !== null && Object.keys(steps).length > MAX_STEPS) {
    return {
      ok: false,
      problems: [{ path: '/steps', message: `a graph has at most ${MAX_STEPS} steps` }],
    }
  }
  const parsed = GraphSpec.safeParse(doc, { reportInput: true })
  const problems = [
    ...(parsed.success ? [] : zodIssuesToProblems(parsed.error.issues)),
    ...routeProblems(doc),
    ...jsonSchemaProblems(doc),
    ...approvalRecordProblems(doc),
    ...(await subgraphProblems(doc, ctx)),
  ]
  if (parsed.success && problems.length === 0) return { ok: true, spec: parsed.data }
  return { ok: false, problems: dedupe(problems) }
}
