import type { Json, State } from '@weave/kernel'

/** Whether a state key belongs to the kernel (`__` prefix) and is hidden from specs. */
export function isProtocolKey(key: string): boolean {
  return key.startsWith('__')
}

/** A shallow copy of `state` without its `__`-prefixed protocol keys. */
export function withoutProtocolKeys(state: Readonly<State>): State {
  const out: State = {}
  for (const [k, v] of Object.entries(state)) if (!isProtocolKey(k)) out[k] = v
  return out
}

/**
 * A deep, unfrozen copy of `state` without protocol keys: what expressions see, limited to the
 * top-level keys in `keys` when given (those an expression can read, see `stateKeysRead`).
 * A copy because JSONata annotates arrays it walks, which throws on the kernel's frozen state.
 */
export function expressionInput(state: Readonly<State>, keys?: ReadonlySet<string>): State {
  const visible: State = {}
  for (const [k, v] of Object.entries(state)) {
    if (!isProtocolKey(k) && (keys === undefined || keys.has(k))) visible[k] = v
  }
  return JSON.parse(JSON.stringify(visible)) as State
}

/** JSONata's `$boolean` cast: empty strings, arrays and objects, 0, null and undefined are false. */
export function isTruthy(value: unknown): boolean {
  if (value === undefined || value === null) return false
  if (typeof value === 'boolean') return value
  if (typeof value === 'string') return value.length > 0
  if (typeof value === 'number') return value !== 0
  if (typeof value === 'function') return false
  if (Array.isArray(value)) {
    if (value.length === 1) return isTruthy(value[0])
    return value.some(isTruthy)
  }
  if (typeof value === 'object') return Object.keys(value).length > 0
  return false
}

/** Whether `value` is a plain JSON object (not null, not an array). */
export function isJsonObject(value: unknown): value is { [k: string]: Json } {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
