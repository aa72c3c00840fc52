import jsonata from 'jsonata'
import type { Json, State } from '@weave/kernel'
import { ExpressionError, ExpressionSyntaxError, type ExpressionFailure } from './errors.js'
import { expressionInput } from './json-value.js'

/** Bounds on one expression evaluation. */
export interface ExpressionLimits {
  /** Wall-clock limit per evaluation, in ms (default 1000). */
  timeoutMs?: number
  /** Maximum JSONata evaluation depth, against runaway recursion (default 1000). */
  maxDepth?: number
  /** Maximum size of the result as JSON text, in bytes (default 1 MiB). */
  maxResultBytes?: number
}

/** The limits used when none are given. */
export const DEFAULT_EXPRESSION_LIMITS: Readonly<Required<ExpressionLimits>> = Object.freeze({
  timeoutMs: 1000,
  maxDepth: 1000,
  maxResultBytes: 1_048_576,
})

/** A parsed JSONata expression, evaluated against a run's state. */
export interface CompiledExpression {
  readonly source: string
  /**
   * Evaluates against `state` with its `__` keys hidden; the result is plain JSON
   * (sequences become arrays), `undefined` when the expression matches nothing.
   * @throws ExpressionError naming `step` and the expression.
   */
  evaluate(state: Readonly<State>, step: string): Promise<Json | undefined>
}

interface JsonataFailure {
  code?: string
  message?: string
  position?: number
}

function describe(err: unknown): string {
  if (typeof err === 'object' && err !== null) {
    const { message, position } = err as JsonataFailure
    if (typeof message === 'string') {
      return typeof position === 'number' ? `${message} (at ${position})` : message
    }
  }
  return String(err)
}

/** The parse error of a JSONata expression, or undefined when it parses. */
export function expressionSyntaxError(source: string): string | undefined {
  try {
    jsonata(source)
    return undefined
  } catch (err) {
    return describe(err)
  }
}

function failureOf(err: unknown): ExpressionFailure {
  const code = (err as JsonataFailure | null)?.code
  if (code === 'D1012') return 'timeout'
  if (code === 'D1011' || err instanceof RangeError) return 'depth'
  return 'error'
}

function isJsonataCallable(value: unknown): boolean {
  if (typeof value === 'function') return true
  if (typeof value !== 'object' || value === null) return false
  const v = value as Record<string, unknown>
  return v._jsonata_lambda === true || v._jsonata_function === true
}

/**
 * Parses `source` once; evaluations are bounded by JSONata's own guardrails (`timeout`,
 * `stack`), which are kept per evaluation, so concurrent runs sharing one compiled expression
 * do not share a clock or a depth counter.
 * @throws ExpressionSyntaxError when the expression does not parse.
 */
export function compileExpression(
  source: string,
  limits: ExpressionLimits = {},
): CompiledExpression {
  const { timeoutMs, maxDepth, maxResultBytes } = { ...DEFAULT_EXPRESSION_LIMITS, ...limits }
  let expr: jsonata.Expression
  try {
    expr = jsonata(source, { timeout: timeoutMs, stack: maxDepth })
  } catch (err) {
    throw new ExpressionSyntaxError(source, describe(err))
  }
  return {
    source,
    async evaluate(state, step) {
      let raw: unknown
      try {
        raw = await expr.evaluate(expressionInput(state))
      } catch (err) {
        throw new ExpressionError(step, source, failureOf(err), describe(err), { cause: err })
      }
      if (raw === undefined) return undefined
      let text: string
      try {
        text = JSON.stringify(raw, (_key, v: unknown) => {
          if (isJsonataCallable(v)) throw new TypeError('the result contains a function')
          return v
        })
      } catch (err) {
        throw new ExpressionError(step, source, 'not-json', describe(err), { cause: err })
      }
      if (Buffer.byteLength(text) > maxResultBytes) {
        throw new ExpressionError(
          step,
          source,
          'too-large',
          `the result is larger than ${maxResultBytes} bytes of JSON`,
        )
      }
      return JSON.parse(text) as Json
    },
  }
}
