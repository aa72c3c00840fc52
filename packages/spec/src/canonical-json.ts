import { createHash } from 'node:crypto'
import type { GraphSpec } from './graph-spec.js'

function write(value: unknown): string | undefined {
  if (value === null) return 'null'
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return JSON.stringify(value)
    case 'number':
      if (!Number.isFinite(value)) throw new TypeError('canonical JSON has no NaN or Infinity')
      return JSON.stringify(value)
    case 'undefined':
    case 'function':
    case 'symbol':
      return undefined
    case 'bigint':
      throw new TypeError('canonical JSON has no bigint')
  }
  if (Array.isArray(value)) return `[${value.map((v) => write(v) ?? 'null').join(',')}]`
  const obj = value as Record<string, unknown>
  if (typeof (obj as { toJSON?: unknown }).toJSON === 'function') {
    return write((obj as { toJSON: () => unknown }).toJSON())
  }
  const members: string[] = []
  // Sorted by UTF-16 code units, the default sort: deterministic for every key.
  for (const key of Object.keys(obj).sort()) {
    const v = write(obj[key])
    if (v !== undefined) members.push(`${JSON.stringify(key)}:${v}`)
  }
  return `{${members.join(',')}}`
}

/**
 * Canonical JSON: object keys sorted, no whitespace, numbers as JavaScript prints them,
 * `undefined` members dropped (as JSON.stringify does).
 * @throws TypeError for NaN, Infinity, bigint, or a top-level value with no JSON form.
 */
export function canonicalJson(value: unknown): string {
  const text = write(value)
  if (text === undefined) throw new TypeError(`${typeof value} has no JSON form`)
  return text
}

/** The hex SHA-256 of a value's canonical JSON: equal values have equal digests. */
export function canonicalDigest(value: unknown): string {
  return createHash('sha256').update(canonicalJson(value), 'utf8').digest('hex')
}

/** The hex SHA-256 of a spec's canonical JSON: equal specs have equal digests. */
export function specDigest(spec: GraphSpec): string {
  return canonicalDigest(spec)
}

/**
 * The material hash of an approval: the hex SHA-256 of the canonical JSON of `{ title, details }`,
 * what the approver is shown. An absent `details` counts as null. A decision names it, and an
 * approval step completes only with a decision on the material it renders now.
 */
export function approvalMaterialHash(title: string, details: unknown): string {
  return canonicalDigest({ title, details: details ?? null })
}
