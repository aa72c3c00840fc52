import { z } from 'zod'
import { parseDuration } from './duration.js'
import { expressionSyntaxError } from './expression.js'
import { isProtocolKey } from './json-value.js'
import { templateSyntaxErrors } from './template.js'

/** The pattern every step name matches. */
export const STEP_NAME_PATTERN = /^[A-Za-z_][A-Za-z0-9_-]{0,63}$/

/** A step name. */
export const StepName = z
  .string()
  .regex(STEP_NAME_PATTERN, { error: `a step name must match ${STEP_NAME_PATTERN.source}` })
export type StepName = z.infer<typeof StepName>

/** A state key a spec may write; `__` keys belong to the kernel. */
export const StateKey = z
  .string()
  .min(1, { error: 'a state key must not be empty' })
  .max(256)
  .refine((k) => !isProtocolKey(k), { error: 'keys starting with "__" are reserved' })
export type StateKey = z.infer<typeof StateKey>

/** A registered graph's name (docs/http-api.md): lowercase letters, digits, `-`, `_`, `.`. */
export const GraphName = z.string().regex(/^[a-z0-9][a-z0-9._-]{0,99}$/, {
  error: 'a graph name is 1-100 lowercase letters, digits, "-", "_" or ".", starting alphanumeric',
})

/** A handler name as given to `defineHandler`, e.g. `crm.notify`. */
export const HANDLER_NAME_PATTERN = /^[A-Za-z_][A-Za-z0-9_.:-]{0,127}$/

/** A handler name. */
export const HandlerName = z.string().regex(HANDLER_NAME_PATTERN, {
  error: `a handler name must match ${HANDLER_NAME_PATTERN.source}`,
})

/** A JSONata expression; it must parse. */
export const Expression = z.string().superRefine((source, ctx) => {
  const error = expressionSyntaxError(source)
  if (error !== undefined) {
    ctx.addIssue({ code: 'custom', message: `expression does not parse: ${error}`, input: source })
  }
})

/** A template with `{{ EXPR }}` placeholders; every placeholder must parse. */
export const Template = z.string().superRefine((source, ctx) => {
  for (const error of templateSyntaxErrors(source)) {
    ctx.addIssue({ code: 'custom', message: `template: ${error}`, input: source })
  }
})

/** An ISO 8601 duration (`P2D`, `PT30M`, `P1DT2H`, `P1W`). */
export const Duration = z.string().superRefine((text, ctx) => {
  try {
    parseDuration(text)
  } catch (err) {
    ctx.addIssue({ code: 'custom', message: (err as Error).message, input: text })
  }
})

/** A JSON Schema (draft 2020-12) document: an object or a boolean. Checked with ajv separately. */
export const JsonSchemaDocument = z.union([z.boolean(), z.record(z.string(), z.json())], {
  error: 'a JSON Schema is an object or a boolean',
})
export type JsonSchemaDocument = z.infer<typeof JsonSchemaDocument>

/** A route target: a step name, or null for the end of the run. */
export const Target = z.string().nullable()
export type Target = z.infer<typeof Target>
