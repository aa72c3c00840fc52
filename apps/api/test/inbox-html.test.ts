import { describe, expect, it } from 'vitest'
import { approvalPanel, timeLeft } from '../src/inbox/approval-panel.js'
import {
  argumentFields,
  argumentsFromForm,
  changedArguments,
} from '../src/inbox/argument-fields.js'
import { html } from '../src/inbox/html.js'
import type { ApprovalPageModel } from '../src/inbox/inbox-service.js'
import { scrubUrl } from '../src/http/scrub-url.js'

const HOSTILE = `<script>alert("x")</script><img src=x onerror='y'>&`

function model(details: unknown): ApprovalPageModel {
  return {
    approval: {
      id: '5d1c2e3f-4a5b-4c6d-8e7f-9a0b1c2d3e4f',
      runId: '0b8f5a52-6c1e-4f7a-9a43-2b1d0c9e7f11',
      step: 'support',
      status: 'pending',
      title: HOSTILE,
      details,
      materialHash: 'a'.repeat(64),
      approvers: {},
      required: 1,
      separationOfDuties: true,
      decisions: [
        {
          by: HOSTILE,
          decision: 'approve',
          comment: HOSTILE,
          input: { arguments: { amount: 200, orderId: 'A-1' } },
          at: '2025-01-31T09:30:01.000Z',
        },
      ],
      expiresAt: null,
      createdAt: '2025-01-31T09:30:01.000Z',
      settledAt: null,
    },
    inputSchema: {
      type: 'object',
      properties: {
        arguments: {
          type: 'object',
          properties: { amount: { type: 'number' }, orderId: { type: 'string' } },
          required: ['amount', 'orderId'],
        },
      },
    },
    run: {
      id: '0b8f5a52-6c1e-4f7a-9a43-2b1d0c9e7f11',
      graph: HOSTILE,
      version: 1,
      status: 'waiting',
      createdBy: HOSTILE,
      createdAt: '2025-01-31T09:30:00.000Z',
    },
    path: [{ seq: 1, lastStep: HOSTILE, status: 'step_done', savedAt: '2025-01-31T09:30:00.000Z' }],
  }
}

describe('inbox markup', () => {
  it('escapes every value a run, a graph or a decider wrote', () => {
    const details = { tool: HOSTILE, arguments: { [HOSTILE]: HOSTILE }, assistantMessage: HOSTILE }
    for (const shown of [details, { note: HOSTILE, list: [HOSTILE] }]) {
      const text = approvalPanel(model(shown), new Date(0), {
        decisions: ['approve', 'reject'],
      }).text
      expect(text).not.toContain('<script>')
      expect(text).not.toContain('<img')
      expect(text).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;')
    }
    expect(html`<p title="${'"><b>'}">${['<i>', html`<i>ok</i>`]}</p>`.text).toBe(
      '<p title="&quot;&gt;&lt;b&gt;">&lt;i&gt;<i>ok</i></p>',
    )
  })

  it("shows a tool call's arguments, an edit form from its schema, and what an edit changed", () => {
    const details = { tool: 'refund', arguments: { amount: 250, orderId: 'A-1' }, callId: 'c1' }
    const text = approvalPanel(model(details), new Date(0), {
      decisions: ['approve', 'reject'],
    }).text
    expect(text).toContain('name="arg.amount"')
    expect(text).toMatch(/<del>250<\/del>\s*→\s*<ins>200<\/ins>/)
    expect(text).toContain('data-form="respond"')
  })

  it('reads edited arguments back by their kinds, and names a field that is not valid', () => {
    const fields = argumentFields(
      { type: 'object', properties: { n: { type: 'integer' }, b: { type: 'boolean' }, o: {} } },
      {},
    )
    expect(argumentsFromForm(fields, { 'arg.n': '3', 'arg.o': '{"a":1}' })).toEqual({
      arguments: { n: 3, b: false, o: { a: 1 } },
    })
    expect(argumentsFromForm(fields, { 'arg.n': 'x' })).toEqual({
      problems: [{ path: '/arguments/n', message: 'must be a number' }],
    })
    expect(changedArguments({ a: 1, b: 2 }, { a: 1, b: 3 })).toEqual([
      { name: 'b', before: 2, after: 3 },
    ])
  })

  it('says how long an approval has left', () => {
    const now = new Date('2025-01-31T09:00:00.000Z')
    expect(timeLeft(null, now)).toBe('no time limit')
    expect(timeLeft('2025-02-01T11:30:00.000Z', now)).toBe(
      '1 day 2 hours (until 2025-02-01 11:30 UTC)',
    )
    expect(timeLeft('2025-01-31T09:00:30.000Z', now)).toMatch(/^less than a minute/)
    expect(timeLeft('2025-01-31T08:00:00.000Z', now)).toBe('expired at 2025-01-31 08:00 UTC')
  })

  it("keeps an approval page link's token out of logged URLs", () => {
    expect(scrubUrl('/inbox/a/abc?x=1')).toBe('/inbox/a/[redacted]?x=1')
    expect(scrubUrl('/INBOX/%61/abc')).toBe('/INBOX/%61/[redacted]')
    expect(scrubUrl('/inbox/approvals/abc')).toBe('/inbox/approvals/abc')
  })
})
