import { Webhook } from 'standardwebhooks'
import { describe, expect, it } from 'vitest'
import { signatureHeader } from '../src/webhooks/signature-header.js'

const secret = (byte: number) => `whsec_${Buffer.alloc(32, byte).toString('base64')}`

function verifies(with_: string, id: string, at: Date, body: string, header: string): boolean {
  try {
    new Webhook(with_).verify(body, {
      'webhook-id': id,
      'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
      'webhook-signature': header,
    })
    return true
  } catch {
    return false
  }
}

describe('signatureHeader', () => {
  const id = 'msg_1'
  const body = '{"type":"run.completed"}'
  const at = new Date()

  it('carries one signature per secret, each verifying on its own', () => {
    const [replaced, current, stranger] = [secret(1), secret(2), secret(3)]
    const header = signatureHeader([current, replaced], id, at, body)
    expect(header.split(' ')).toHaveLength(2)
    expect(header).toMatch(/^v1,[A-Za-z0-9+/]+=* v1,[A-Za-z0-9+/]+=*$/)
    expect(verifies(current, id, at, body, header)).toBe(true)
    expect(verifies(replaced, id, at, body, header)).toBe(true)
    expect(verifies(stranger, id, at, body, header)).toBe(false)
  })

  it('is the single signature Standard Webhooks makes for one secret', () => {
    const only = secret(4)
    expect(signatureHeader([only], id, at, body)).toBe(new Webhook(only).sign(id, at, body))
  })

  it('binds the body: a changed body verifies with no secret', () => {
    const current = secret(5)
    const header = signatureHeader([current], id, at, body)
    expect(verifies(current, id, at, `${body} `, header)).toBe(false)
  })
})
