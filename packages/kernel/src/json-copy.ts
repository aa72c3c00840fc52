import type { Json, State } from './json.js'

/**
 * Copies a value the way `JSON.parse(JSON.stringify(v))` would (`undefined` properties vanish,
 * `toJSON` is honoured so a Date becomes its ISO string, non-finite numbers become null), but
 * throws a TypeError naming the offending path where JSON would throw or silently drop data:
 * bigints, functions, symbols and cycles. Keeps a resumed run seeing what an uninterrupted one saw.
 * @throws TypeError for a value that has no JSON form
 */
export function copyJson(value: unknown, path: string): Json | undefined {
  return copyValue(value, path, '', [])
}

/**
 * Copies a plain object into a State (see copyJson).
 * @throws TypeError when `value` is not a plain object or holds a non-JSON value
 */
export function copyState(value: unknown, what: string): State {
  if (!isPlainObject(value)) {
    throw new TypeError(`${what} must be a plain JSON object, got ${describe(value)}`)
  }
  return copyValue(value, '', '', []) as State
}

/** True for `{}`-like objects (prototype Object.prototype or null), not arrays or class instances. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false
  const proto = Object.getPrototypeOf(value) as unknown
  return proto === Object.prototype || proto === null
}

function copyValue(value: unknown, path: string, key: string, stack: object[]): Json | undefined {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value
    case 'number':
      return Number.isFinite(value) ? value : null
    case 'undefined':
      return undefined
    case 'bigint':
    case 'function':
    case 'symbol':
      throw new TypeError(`${label(path)} holds a ${typeof value}, which is not a JSON value`)
  }
  if (value === null) return null
  const obj = value as { toJSON?: unknown }
  if (typeof obj.toJSON === 'function') {
    return copyValue((obj.toJSON as (k: string) => unknown)(key), path, key, stack)
  }
  if (stack.includes(obj))
    throw new TypeError(`${label(path)} is a cyclic structure, which is not JSON`)
  stack.push(obj)
  try {
    if (Array.isArray(obj)) {
      const out: Json[] = new Array<Json>(obj.length)
      for (let i = 0; i < obj.length; i++) {
        out[i] = copyValue(obj[i], `${path}[${i}]`, String(i), stack) ?? null
      }
      return out
    }
    const out: { [k: string]: Json } = {}
    for (const k of Object.keys(obj)) {
      const v = copyValue((obj as Record<string, unknown>)[k], path ? `${path}.${k}` : k, k, stack)
      if (v !== undefined) setOwn(out, k, v)
    }
    return out
  } finally {
    stack.pop()
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

function label(path: string): string {
  return path ? `state key "${path}"` : 'the value'
}

function describe(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'an array'
  if (typeof value === 'object')
    return `an instance of ${value.constructor?.name ?? 'an unknown class'}`
  return `a ${typeof value}`
}
