import { createHash } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { auditHash, hashJson } from '@weave/db'
import { canonicalJson } from '@weave/spec'

describe('hashJson', () => {
  it('hashes the canonical JSON, so key order does not matter', () => {
    expect(hashJson({ x: 1, y: [1, 2] })).toBe(hashJson({ y: [1, 2], x: 1 }))
    expect(hashJson({ x: 1 })).not.toBe(hashJson({ x: 2 }))
    expect(hashJson({ a: 1 })).toBe(createHash('sha256').update('{"a":1}').digest('hex'))
  })
})

describe('auditHash', () => {
  const event = {
    id: '00000000-0000-4000-8000-000000000000',
    seq: 1,
    at: '2025-01-01T00:00:00.000Z',
    tenant: 't',
    actor: 'a',
    action: 'run.started',
    target: { kind: 'run', id: 'r' },
    requestId: null,
    ip: null,
    details: { z: 1, a: 2 },
    prevHash: '0'.repeat(64),
  }

  it('is sha256 of prevHash followed by the canonical event', () => {
    expect(auditHash(event)).toBe(hashJsonWithPrefix(event.prevHash, event))
  })

  it('changes with any field', () => {
    expect(auditHash({ ...event, seq: 2 })).not.toBe(auditHash(event))
    expect(auditHash({ ...event, details: { z: 1, a: 3 } })).not.toBe(auditHash(event))
  })
})

function hashJsonWithPrefix(prefix: string, value: unknown): string {
  return createHash('sha256')
    .update(prefix + canonicalJson(value))
    .digest('hex')
}
