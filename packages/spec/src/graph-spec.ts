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

/** A graph as a JSON document (GRAPH-SPEC.md). Unknown fields are rejected at every level. */
export const GraphSpec = z.strictObject({
  entry: z.string().min(1, { error: 'entry names the first step' }),
  steps: z.record(StepName, StepSpec),
  input: JsonSchemaDocument.optional(),
  merge: z.record(StateKey, MergePolicyName).optional(),
  limits: Limits.optional(),
  history: z.int().min(-1).default(-1),
})
/** A parsed graph spec (defaults applied). */
export type GraphSpec = z.infer<typeof GraphSpec>
/** A graph spec as written (before defaults). */
export type GraphSpecInput = z.input<typeof GraphSpec>
