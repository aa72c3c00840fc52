/** A node of a parsed JSONata expression (`jsonata(...).ast()`): `type`, `value` and its parts. */
export type AstNode = Record<string, unknown>

/**
 * Every node of a parsed JSONata expression, each once, in no particular order: the objects
 * reachable from `ast` (steps, stages, arguments, object constructor pairs...), without looking
 * into a regex literal's RegExp.
 */
export function* astNodes(ast: unknown): Generator<AstNode> {
  const seen = new Set<unknown>()
  const pending: unknown[] = [ast]
  while (pending.length > 0) {
    const node = pending.pop()
    if (typeof node !== 'object' || node === null || seen.has(node)) continue
    seen.add(node)
    if (node instanceof RegExp) continue
    if (!Array.isArray(node)) yield node as AstNode
    pending.push(...Object.values(node))
  }
}
