import type { Json, State } from './json.js'

/**
 * Copies a value the way `JSON.parse(JSON.stringify(v))` would (`undefined` properties vanish,
 * `toJSON` is honoured so a Date becomes its ISO string, non-finite numbers become null), but
 * throws a TypeError naming the offending path where JSON would throw or silently drop data:
 * bigints, functions, symbols and cycles. Keeps a resumed run seeing what an uninterrupted one saw.
 * Every object of the copy is frozen as it is built (one pass instead of copy then freeze).
 * @throws TypeError for a value that has no JSON form
 */
export function copyJson(value: unknown): Json | undefined {
  return copyNaming(value, true)
}

/**
 * Copies a plain object into a State (see copyJson); nested values are frozen, the returned
 * object itself is not, so the caller can finish it before freezing it.
 * @throws TypeError when `value` is not a plain object or holds a non-JSON value
 */
export function copyState(value: unknown, what: string): State {
  if (!isPlainObject(value)) {
    throw new TypeError(`${what} must be a plain JSON object, got ${describe(value)}`)
  }
  return copyNaming(value, false) as State
}

/** True for `{}`-like objects (prototype Object.prototype or null), not arrays or class instances. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false
  const proto = Object.getPrototypeOf(value) as unknown
  return proto === Object.prototype || proto === null
}

/**
 * A non-JSON value found while copying. Its path is built only when one is thrown, level by
 * level as the recursion unwinds, so copying valid values costs no string building.
 */
class NotJsonError extends TypeError {
  readonly segments: string[] = []
  constructor(readonly problem: string) {
    super(problem)
  }
}

/** Nesting depth from which cycles are looked for: real states are shallower, cycles are not. */
const CYCLE_CHECK_DEPTH = 64

function copyValue(
  value: unknown,
  freeze: boolean,
  depth: number,
  key: string | number,
  ancestors: object[] | undefined,
): Json | undefined {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value
    case 'number':
      // JSON writes -0 as 0 and has no form for NaN or ±Infinity.
      return Number.isFinite(value) ? (value === 0 ? 0 : value) : null
    case 'undefined':
      return undefined
    case 'bigint':
    case 'function':
    case 'symbol':
      throw new NotJsonError(`holds a ${typeof value}, which is not a JSON value`)
  }
  if (value === null) return null
  const obj = value as { toJSON?: unknown }
  if (typeof obj.toJSON === 'function') {
    const replaced = (obj.toJSON as (k: string) => unknown)(String(key))
    return copyValue(replaced, freeze, depth, key, ancestors)
  }
  // JSON writes a boxed primitive (`new String("a")`) as the primitive it holds.
  if (value instanceof Number) return copyValue(Number(value), freeze, depth, key, ancestors)
  if (value instanceof String) return String(value)
  if (value instanceof Boolean) return value.valueOf()
  // Below CYCLE_CHECK_DEPTH no ancestor list is kept (the hot path); past it, every ancestor is.
  let path = ancestors
  if (depth >= CYCLE_CHECK_DEPTH) {
    if (path?.includes(obj)) throw new NotJsonError('is a cyclic structure, which is not JSON')
    path = path ? [...path, obj] : [obj]
  }
  if (Array.isArray(obj)) {
    const out: Json[] = new Array<Json>(obj.length)
    let i = 0
    try {
      for (; i < obj.length; i++) out[i] = copyValue(obj[i], true, depth + 1, i, path) ?? null
    } catch (err) {
      if (err instanceof NotJsonError) err.segments.unshift(`[${i}]`)
      throw err
    }
    return freeze ? (Object.freeze(out) as Json[]) : out
  }
  const out: { [k: string]: Json } = {}
  const keys = Object.keys(obj)
  let k = ''
  try {
    for (k of keys) {
      const v = copyValue((obj as Record<string, unknown>)[k], true, depth + 1, k, path)
      if (v === undefined) continue
      if (k === '__proto__') setOwn(out, k, v)
      else out[k] = v
    }
  } catch (err) {
    if (err instanceof NotJsonError) err.segments.unshift(k)
    throw err
  }
  return freeze ? Object.freeze(out) : out
}

/** Runs a copy, turning a NotJsonError into a TypeError that names the offending key path. */
function copyNaming(value: unknown, freeze: boolean): Json | undefined {
  try {
    return copyValue(value, freeze, 0, '', undefined)
  } catch (err) {
    if (!(err instanceof NotJsonError)) throw err
    const path = err.segments.reduce(
      (p, s) => (s.startsWith('[') || p === '' ? p + s : `${p}.${s}`),
      '',
    )
    throw new TypeError(`${path ? `state key "${path}"` : 'the value'} ${err.problem}`)
  }
}

/** Assigns an own property even for the key "__proto__", which plain assignment would not create. */
export function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') {
    Object.defineProperty(target, key, {
      value,
      enumerable: true,
      writable: true,
      configurable: true,
    })
  } else {
    target[key] = value
  }
}

/**
 * Freezes a value and everything it holds. Stops at objects already frozen: every object in a
 * state is a fresh copy made by the kernel and frozen whole, so a frozen one is frozen deeply.
 */
export function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value)
    for (const v of Object.values(value)) deepFreeze(v)
  }
  return value
}

function describe(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'an array'
  if (typeof value === 'object')
    return `an instance of ${value.constructor?.name ?? 'an unknown class'}`
  return `a ${typeof value}`
}
