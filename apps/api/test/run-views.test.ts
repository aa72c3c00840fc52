import { WaitingOn as ProtocolWaitingOn, type RunRow } from '@weave/db'
import { describe, expect, it } from 'vitest'
import { RunSummary, WaitingOn } from '../src/schemas/runs.js'
import { toRunSummary } from '../src/services/run-views.js'

const APPROVAL_ID = '5d1c2e3f-4a5b-4c6d-8e7f-9a0b1c2d3e4f'

/** One of each kind of wait, as the worker stores them. */
const WAITS = [
  { kind: 'approval', step: 'review', approvalId: APPROVAL_ID, atSeq: 2 },
  // An agent's calls of one turn, asked about together.
  {
    kind: 'approval',
    step: 'support',
    approvalId: APPROVAL_ID,
    approvalIds: [APPROVAL_ID, '6e2d3f4a-5b6c-4d7e-8f9a-0b1c2d3e4f5a'],
    atSeq: 5,
  },
  {
    kind: 'input',
    step: 'ask',
    atSeq: 3,
    prompt: 'Where?',
    schema: { type: 'object', properties: { address: { type: 'string' } } },
    saveAs: 'where',
  },
  { kind: 'input', step: 'ask', atSeq: 1, prompt: null, schema: null, saveAs: null },
  { kind: 'wait', step: 'pause', atSeq: 4, until: '2025-01-31T10:00:00.000+01:00' },
]

function runRow(waitingOn: unknown): RunRow {
  const at = new Date('2025-01-31T09:30:00.000Z')
  return {
    id: '0b8f5a52-6c1e-4f7a-9a43-2b1d0c9e7f11',
    tenantId: 't',
    graphName: 'pricing',
    graphVersion: 1,
    status: 'waiting',
    stopReason: 'yielded',
    lastStep: 'review',
    steps: 2,
    error: null,
    input: {},
    waitingOn,
    cancelRequested: false,
    leaseJob: null,
    leaseToken: null,
    checkpointSeq: 2,
    eventSeq: 0,
    wakeAt: null,
    pendingResume: null,
    createdBy: 'alice',
    idempotencyKey: null,
    requestHash: null,
    forkedFrom: null,
    forkedSeq: null,
    threadId: null,
    threadSeq: null,
    baseRunId: null,
    held: false,
    scheduleId: null,
    concurrencyKey: null,
    concurrencyLimit: null,
    concurrencySeq: null,
    createdAt: at,
    updatedAt: at,
    finishedAt: null,
    retainedSeq: null,
    retentionDue: false,
    expiresAt: null,
  }
}

describe('a run as clients see it', () => {
  it('shows every protocol wait as the API schema describes it', () => {
    for (const wait of WAITS) {
      expect(ProtocolWaitingOn.parse(wait)).toEqual(wait)
      expect(WaitingOn.parse(wait)).toEqual(wait)
      const summary = toRunSummary(runRow(wait))
      expect(summary.waitingOn).toEqual(wait)
      expect(RunSummary.safeParse(summary).error).toBeUndefined()
    }
  })

  it('shows a stored wait of another shape as none, rather than misread', () => {
    const summary = toRunSummary(runRow({ kind: 'input', step: 'ask' }))
    expect(summary.waitingOn).toBeNull()
    expect(toRunSummary(runRow(null)).waitingOn).toBeNull()
  })
})
