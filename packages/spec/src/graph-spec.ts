import { z } from 'zod'
import { StepSpec } from './step-schema.js'
import { JsonSchemaDocument, StateKey, StepName } from './schema-primitives.js'

/** The merge policies a spec may name. */
export const MergePolicyName = z.enum(['overwrite', 'append', 'sum', 'mergeObject'])
export type MergePolicyName = z.infer<typeof MergePolicyName>

/** Run limits: per-graph iterations and the step budget shared with subgraphs. */
export const Limits = z.strictObject({
  maxIterations: z.int().min(1).optional(),
  stepBudget: z.int().min(0).optional(),
})
export type Limits = z.infer<typeof Limits>

/**
 * How much of a finished run's checkpoint history retention keeps (README, Retention): every
 * entry, none (the run's latest checkpoint, its final state, is always kept), or the newest n.
 */
export const CheckpointRetention = z.union([
  z.enum(['all', 'none']),
  z.strictObject({ last: z.int().min(1).max(1_000_000) }),
])
export type CheckpointRetention = z.infer<typeof CheckpointRetention>

/**
 * A graph's retention policy; each field it sets overrides the tenant's (`PUT /v1/retention`).
 * `runDays`: a finished run, its checkpoints, events and webhook deliveries are deleted that
 * many days after it finished.
 */
export const RetentionSpec = z.strictObject({
  checkpoints: CheckpointRetention.optional(),
  runDays: z.int().min(1).max(36_500).optional(),
})
export type RetentionSpec = z.infer<typeof RetentionSpec>

/** The most steps one graph may have (parallel branches not counted). */
export const MAX_STEPS = 500

const StepMap = z.record(StepName, StepSpec)

// Counted before any step is parsed, so an oversized spec is refused in time linear in its
// number of keys rather than after parsing (and reporting on) every one of its steps.
const Steps = z.preprocess((steps: z.input<typeof StepMap>, ctx) => {
  if (typeof steps === 'object' && steps !== null && Object.keys(steps).length > MAX_STEPS) {
    ctx.addIssue({
      code: 'too_big',
      origin: 'object',
      maximum: MAX_STEPS,
      inclusive: true,
      input: steps,
      message: `a graph has at most ${MAX_STEPS} steps`,
    })
  }
  return steps
}, StepMap)

/** A graph as a JSON document (docs/graph-spec.md). Unknown fields are rejected at every level. */
export const GraphSpec = z.strictObject({
  entry: z.string().min(1, { error: 'entry names the first step' }),
  steps: Steps,
  input: JsonSchemaDocument.optional(),
  merge: z.record(StateKey, MergePolicyName).optional(),
  limits: Limits.optional(),
  history: z.int().min(-1).default(-1),
  retention: RetentionSpec.optional(),
})
/** A parsed graph spec (defaults applied). */
export type GraphSpec = z.infer<typeof GraphSpec>
/** A graph spec as written (before defaults). */
export type GraphSpecInput = z.input<typeof GraphSpec>
