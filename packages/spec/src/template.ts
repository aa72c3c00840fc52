import type { State } from '@weave/kernel'
import { ExpressionSyntaxError } from './errors.js'
import {
  compileExpression,
  expressionSyntaxError,
  type CompiledExpression,
  type ExpressionLimits,
} from './expression.js'

type Segment = { text: string } | { expr: string }

/** A parsed template: literal text with `{{ EXPR }}` placeholders. */
export interface CompiledTemplate {
  readonly source: string
  /**
   * Renders against `state`: strings as they are, nothing for `undefined`, other values as JSON.
   * @throws ExpressionError naming `step` and the failing placeholder's expression.
   */
  render(state: Readonly<State>, step: string): Promise<string>
}

interface Scan {
  segments: Segment[]
  errors: string[]
}

// A placeholder closes at the first `}}` whose inner text parses, so object constructors
// such as `{{ {'a': {'b': 1}} }}` work; when none parses, the first candidate's error is kept.
function scan(source: string): Scan {
  const segments: Segment[] = []
  const errors: string[] = []
  let i = 0
  for (;;) {
    const open = source.indexOf('{{', i)
    if (open === -1) {
      if (i < source.length) segments.push({ text: source.slice(i) })
      return { segments, errors }
    }
    if (open > i) segments.push({ text: source.slice(i, open) })
    let close = source.indexOf('}}', open + 2)
    if (close === -1) {
      errors.push(`placeholder at ${open} has no closing "}}"`)
      return { segments, errors }
    }
    const firstClose = close
    let firstError: string | undefined
    let found: string | undefined
    while (close !== -1) {
      const inner = source.slice(open + 2, close)
      const error = inner.trim() === '' ? 'empty placeholder' : expressionSyntaxError(inner)
      if (error === undefined) {
        found = inner
        break
      }
      firstError ??= error
      close = source.indexOf('}}', close + 1)
    }
    if (found === undefined) {
      errors.push(
        `placeholder "${source.slice(open, firstClose + 2)}" does not parse: ${firstError}`,
      )
      i = firstClose + 2
    } else {
      segments.push({ expr: found.trim() })
      i = close + 2
    }
  }
}

/** Every parse problem of a template's placeholders; empty when it compiles. */
export function templateSyntaxErrors(source: string): string[] {
  return scan(source).errors
}

/**
 * Parses a template and each of its placeholders once.
 * @throws ExpressionSyntaxError when a placeholder does not parse.
 */
export function compileTemplate(source: string, limits?: ExpressionLimits): CompiledTemplate {
  const { segments, errors } = scan(source)
  if (errors.length > 0) throw new ExpressionSyntaxError(source, errors.join('; '))
  const parts: Array<string | CompiledExpression> = segments.map((s) =>
    'text' in s ? s.text : compileExpression(s.expr, limits),
  )
  return {
    source,
    async render(state, step) {
      let out = ''
      for (const part of parts) {
        if (typeof part === 'string') {
          out += part
          continue
        }
        const value = await part.evaluate(state, step)
        if (value === undefined) continue
        out += typeof value === 'string' ? value : JSON.stringify(value)
      }
      return out
    },
  }
}
