import jsonata from 'jsonata'
import type { Json, State } from '@weave/kernel'
import { ExpressionError, ExpressionSyntaxError, type ExpressionFailure } from './errors.js'
import { StringLimitError, stringLimitBindings } from './expression-builtins.js'
import { stateKeysRead } from './expression-reads.js'
import {
  LinearRegexEngine,
  mayRunRegex,
  regexLiteralError,
  withRegexDeadline,
} from './expression-regex.js'
import { expressionInput } from './json-value.js'
import { isStackOverflow } from './stack-overflow.js'

/** Bounds on one expression evaluation. */
export interface ExpressionLimits {
  /** Wall-clock limit per evaluation, in ms (default 1000). */
  timeoutMs?: number
  /** Maximum JSONata evaluation depth, against runaway recursion (default 1000). */
  maxDepth?: number
  /** Maximum size of the result as JSON text, in bytes (default 1 MiB). */
  maxResultBytes?: number
  /**
   * Maximum length of a string a builtin ($pad, $replace, $join, $length...) takes or makes,
   * in UTF-16 code units (default 1 Mi).
   */
  maxStringLength?: number
}

/** The limits used when none are given. */
export const DEFAULT_EXPRESSION_LIMITS: Readonly<Required<ExpressionLimits>> = Object.freeze({
  timeoutMs: 1000,
  maxDepth: 1000,
  maxResultBytes: 1_048_576,
  maxStringLength: 1_048_576,
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
  // The parser recurses per nesting level: past the stack's depth V8 names its own limit.
  if (isStackOverflow(err)) return 'the expression nests too deeply'
  if (typeof err === 'object' && err !== null) {
    const { message, position } = err as JsonataFailure
    if (typeof message === 'string') {
      return typeof position === 'number' ? `${message} (at ${position})` : message
    }
  }
  return String(err)
}

// Regex literals run on RE2 (linear time): a backtracking RegExp could spend minutes inside
// one $match call, where JSONata's timeout is never checked.
const REGEX_ENGINE = LinearRegexEngine as unknown as RegExpConstructor

/**
 * Parses `source` with the options evaluations use.
 * @throws the JSONata parse error, or a SyntaxError for a regex literal RE2 cannot run.
 */
function parse(source: string, options: jsonata.JsonataOptions = {}): jsonata.Expression {
  const expr = jsonata(source, { ...options, RegexEngine: REGEX_ENGINE })
  const regexError = regexLiteralError(expr.ast())
  if (regexError !== undefined) throw new SyntaxError(regexError)
  return expr
}

/**
 * The parse error of a JSONata expression, or undefined when it parses; a regex literal RE2
 * cannot run (backreferences, lookaround) is one.
 */
export function expressionSyntaxError(source: string): string | undefined {
  try {
    parse(source)
    return undefined
  } catch (err) {
    return describe(err)
  }
}

function failureOf(err: unknown): ExpressionFailure {
  const code = (err as JsonataFailure | null)?.code
  if (code === 'D1012') return 'timeout'
  if (err instanceof StringLimitError) return 'too-large'
  // V8's own ceiling on string and array sizes, reached before any limit of ours could be.
  if (err instanceof RangeError && /Invalid (string|array) length/.test(err.message)) {
    return 'too-large'
  }
  if (code === 'D1011' || err instanceof RangeError) return 'depth'
  return 'error'
}

function tooLarge(step: string, source: string, maxResultBytes: number): ExpressionError {
  const detail = `the result is larger than ${maxResultBytes} bytes of JSON`
  return new ExpressionError(step, source, 'too-large', detail)
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
 * do not share a clock or a depth counter. Inside one builtin call, where those guardrails are
 * not checked, regexes run on RE2 under the same deadline and strings are capped at
 * `maxStringLength`.
 * @throws ExpressionSyntaxError when the expression does not parse.
 */
export function compileExpression(
  source: string,
  limits: ExpressionLimits = {},
): CompiledExpression {
  const { timeoutMs, maxDepth, maxResultBytes, maxStringLength } = {
    ...DEFAULT_EXPRESSION_LIMITS,
    ...limits,
  }
  let expr: jsonata.Expression
  try {
    expr = parse(source, { timeout: timeoutMs, stack: maxDepth })
  } catch (err) {
    throw new ExpressionSyntaxError(source, describe(err))
  }
  const ast = expr.ast()
  const regexDeadline = mayRunRegex(ast)
  // Only what the expression can read is copied for it: a run's state may hold large documents.
  const keysRead = stateKeysRead(ast)
  return {
    source,
    async evaluate(state, step) {
      let raw: unknown
      try {
        const bindings = await stringLimitBindings(maxStringLength)
        const evaluate = () => expr.evaluate(expressionInput(state, keysRead), bindings)
        raw = await (regexDeadline ? withRegexDeadline(timeoutMs, evaluate) : evaluate())
      } catch (err) {
        throw new ExpressionError(step, source, failureOf(err), describe(err), { cause: err })
      }
      if (raw === undefined) return undefined
      let text: string
      try {
        text = JSON.stringify(raw, (_key, v: unknown) => {
          if (isJsonataCallable(v)) throw new TypeError('the result contains a function')
          // Measured before serialising: a rope built with `&` is flattened only by writing it.
          if (typeof v === 'string' && v.length > maxResultBytes) throw new StringLimitError()
          return v
        })
      } catch (err) {
        if (err instanceof StringLimitError) throw tooLarge(step, source, maxResultBytes)
        throw new ExpressionError(step, source, 'not-json', describe(err), { cause: err })
      }
      if (Buffer.byteLength(text) > maxResultBytes) throw tooLarge(step, source, maxResultBytes)
      return JSON.parse(text) as Json
    },
  }
}
