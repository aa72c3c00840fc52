/** How deep client JSON may nest: far beyond real documents, well within every parser's stack. */
export const MAX_JSON_DEPTH = 64

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/

/**
 * Why Postgres could not store a string, or undefined: text and jsonb refuse U+0000, and jsonb
 * refuses the `\uD800`-style escape JSON.stringify writes for a lone surrogate.
 */
export function textProblem(text: string): string | undefined {
  if (text.includes('\u0000')) return 'must not contain the NUL character (U+0000)'
  if (LONE_SURROGATE.test(text)) return 'must not contain a lone UTF-16 surrogate'
  return undefined
}

/**
 * Why a JSON value given by a client could not be stored and hashed as it is, or undefined:
 * a string or key {@link textProblem} refuses, a number beyond double range (JSON.parse turns
 * `1e400` into Infinity, which canonical JSON refuses), or nesting deeper than
 * {@link MAX_JSON_DEPTH}. Iterative, so no input can exhaust the stack here.
 */
export function storableJsonProblem(value: unknown): string | undefined {
  const stack: { value: unknown; depth: number }[] = [{ value, depth: 0 }]
  for (let item = stack.pop(); item !== undefined; item = stack.pop()) {
    const current = item.value
    if (typeof current === 'string') {
      const problem = textProblem(current)
      if (problem) return problem
    } else if (typeof current === 'number') {
      if (!Number.isFinite(current)) return 'must not contain a number beyond double range'
    } else if (typeof current === 'object' && current !== null) {
      if (item.depth >= MAX_JSON_DEPTH) return `must not nest deeper than ${MAX_JSON_DEPTH} levels`
      const entries = Array.isArray(current) ? current : Object.values(current)
      if (!Array.isArray(current)) {
        for (const key of Object.keys(current)) {
          const problem = textProblem(key)
          if (problem) return problem
        }
      }
      for (const child of entries) stack.push({ value: child, depth: item.depth + 1 })
    }
  }
  return undefined
}
