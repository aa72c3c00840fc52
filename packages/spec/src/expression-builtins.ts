import jsonata from 'jsonata'

/** A string given to or made by a builtin is longer than the expression limits allow. */
export class StringLimitError extends Error {
  override name = 'StringLimitError'
}

// Builtins that read or build a whole string in one call. The `&` operator builds strings in
// constant time (V8 ropes), so a few steps can make one of hundreds of megabytes; a single call
// on it ($length, $pad, $replace...) would then run or allocate far past the evaluation
// timeout, which JSONata checks only between steps.
const STRING_BUILTINS = [
  'string',
  'length',
  'substring',
  'substringBefore',
  'substringAfter',
  'uppercase',
  'lowercase',
  'trim',
  'pad',
  'contains',
  'split',
  'join',
  'match',
  'replace',
  'eval',
  'error',
  'number',
  'formatNumber',
  'formatBase',
  'formatInteger',
  'parseInteger',
  'base64encode',
  'base64decode',
  'encodeUrlComponent',
  'encodeUrl',
  'decodeUrlComponent',
  'decodeUrl',
  'toMillis',
  'fromMillis',
] as const

/** A JSONata native function value, as JSONata binds its builtins. */
interface NativeFunction {
  _jsonata_function: true
  implementation: (this: unknown, ...args: unknown[]) => unknown
  signature?: unknown
  arity?: number
}

let builtins: Promise<Map<string, NativeFunction>> | undefined

// JSONata hands out its builtins only through an evaluation; looked up once per process.
function loadBuiltins(): Promise<Map<string, NativeFunction>> {
  builtins ??= (async () => {
    const found = new Map<string, NativeFunction>()
    for (const name of STRING_BUILTINS) {
      const value: unknown = await jsonata(`$${name}`).evaluate({})
      if ((value as NativeFunction | undefined)?._jsonata_function === true) {
        found.set(name, value as NativeFunction)
      }
    }
    return found
  })()
  return builtins
}

/** Whether the strings in `value` (nested arrays and objects included) exceed `max` in total. */
function exceedsLength(value: unknown, max: number): boolean {
  let total = 0
  const pending: unknown[] = [value]
  while (pending.length > 0) {
    const v = pending.pop()
    if (typeof v === 'string') {
      total += v.length
      if (total > max) return true
    } else if (typeof v === 'object' && v !== null) {
      pending.push(...(Array.isArray(v) ? v : Object.values(v)))
    }
  }
  return false
}

function tooLong(name: string, max: number): StringLimitError {
  return new StringLimitError(`$${name}: a string longer than ${max} characters is not allowed`)
}

function guard(name: string, builtin: NativeFunction, max: number): NativeFunction {
  const original = builtin.implementation
  const checkResult = (result: unknown) => {
    if (typeof result === 'string' && result.length > max) throw tooLong(name, max)
    return result
  }
  function guarded(this: unknown, ...args: unknown[]): unknown {
    if (args.some((a) => exceedsLength(a, max))) throw tooLong(name, max)
    // $pad builds its padding before anything could measure it.
    if (name === 'pad' && typeof args[1] === 'number' && Math.abs(args[1]) > max) {
      throw tooLong(name, max)
    }
    const result = original.apply(this, args)
    return result instanceof Promise ? result.then(checkResult) : checkResult(result)
  }
  // JSONata reads a native function's parameter names from its source text for partial
  // application (`$pad(?, 5)`), and its arity from `length`: both must be the original's.
  guarded.toString = () => original.toString()
  return { ...builtin, implementation: guarded, arity: builtin.arity ?? original.length }
}

// One set per limit in use (servers configure one or two).
const bindingsByLimit = new Map<number, Promise<Record<string, unknown>>>()

/**
 * JSONata bindings that replace the string builtins with ones refusing any string argument or
 * result longer than `maxLength` (UTF-16 code units), and any `$pad` width beyond it.
 * The guarded builtins throw StringLimitError.
 */
export function stringLimitBindings(maxLength: number): Promise<Record<string, unknown>> {
  let bindings = bindingsByLimit.get(maxLength)
  if (!bindings) {
    bindings = loadBuiltins().then((found) => {
      const out: Record<string, unknown> = {}
      for (const [name, builtin] of found) out[name] = guard(name, builtin, maxLength)
      return out
    })
    bindingsByLimit.set(maxLength, bindings)
  }
  return bindings
}
