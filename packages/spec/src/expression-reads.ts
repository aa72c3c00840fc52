import { astNodes } from './expression-ast.js'

/**
 * JSONata builtins that take only the arguments they are given: no parameter of theirs defaults
 * to the context value (`-` in the signature), and none reads the input by other means
 * (`$eval` does). `expression-reads.test.ts` checks each against JSONata's own signatures.
 */
export const CONTEXT_FREE_BUILTINS: ReadonlySet<string> = new Set([
  'append',
  'assert',
  'average',
  'count',
  'distinct',
  'error',
  'exists',
  'filter',
  'join',
  'map',
  'max',
  'merge',
  'millis',
  'min',
  'now',
  'random',
  'reduce',
  'reverse',
  'shuffle',
  'single',
  'sort',
  'sum',
  'type',
  'zip',
])

/**
 * The other JSONata builtins: a parameter of theirs defaults to the context value, or (`$eval`)
 * they read it themselves.
 */
export const CONTEXT_BUILTINS: ReadonlySet<string> = new Set([
  'abs',
  'base64decode',
  'base64encode',
  'boolean',
  'ceil',
  'clone',
  'contains',
  'decodeUrl',
  'decodeUrlComponent',
  'each',
  'encodeUrl',
  'encodeUrlComponent',
  'eval',
  'floor',
  'formatBase',
  'formatInteger',
  'formatNumber',
  'fromMillis',
  'keys',
  'length',
  'lookup',
  'lowercase',
  'match',
  'not',
  'number',
  'pad',
  'parseInteger',
  'power',
  'replace',
  'round',
  'sift',
  'split',
  'spread',
  'sqrt',
  'string',
  'substring',
  'substringAfter',
  'substringBefore',
  'toMillis',
  'trim',
  'uppercase',
])

// Nodes that read their context as a whole: `*`, `**` and `%`.
const WHOLE_CONTEXT_NODES = new Set(['wildcard', 'descendant', 'parent'])

/**
 * The top-level state keys a parsed expression (`ast` from `jsonata(...).ast()`) can read, or
 * undefined when it may read the whole state. Any field name the expression mentions counts,
 * wherever it appears, so the set may hold more than the expression reads, never less.
 *
 * It is undefined when the expression names `$` or `$$`, uses `*`, `**` or `%`, declares a
 * function signature, or names a function other than its own bindings and the builtins that take
 * no implicit context argument: `$string()` at the top level converts the whole input.
 */
export function stateKeysRead(ast: unknown): ReadonlySet<string> | undefined {
  const names = new Set<string>()
  const variables = new Set<string>()
  const bound = new Set<string>()
  for (const node of astNodes(ast)) {
    const { type, value } = node
    if (typeof type === 'string' && WHOLE_CONTEXT_NODES.has(type)) return undefined
    if (type === 'name' && typeof value === 'string') names.add(value)
    if (type === 'variable' && typeof value === 'string') variables.add(value)
    if (type === 'lambda' && node.signature !== undefined) return undefined
    if (type === 'bind') bound.add(String((node.lhs as { value?: unknown } | undefined)?.value))
    if (type === 'lambda' && Array.isArray(node.arguments)) {
      for (const arg of node.arguments as Array<{ value?: unknown }>) bound.add(String(arg.value))
    }
    // `items@$item` and `items#$i` bind the item and its position.
    if (typeof node.focus === 'string') bound.add(node.focus)
    if (typeof node.index === 'string') bound.add(node.index)
  }
  // `$` and `$$` are the variables '' and '$', which nothing binds. An own binding never shadows
  // a builtin here: `$string(); $string := ...` would call the builtin first.
  for (const variable of variables) {
    if (CONTEXT_FREE_BUILTINS.has(variable)) continue
    if (!bound.has(variable) || CONTEXT_BUILTINS.has(variable)) return undefined
  }
  return names
}
