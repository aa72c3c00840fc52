import { APPROVAL_STATUSES, DECISIONS } from '@weave/db'
import { z } from 'zod'
import { JsonObject, JsonValue, PageQuery, Text, Timestamp, pageOf } from './common.js'

const APPROVAL_ID = '5d1c2e3f-4a5b-4c6d-8e7f-9a0b1c2d3e4f'
const MATERIAL_HASH = '3b7e1f0a9c2d4e6f8a0b1c3d5e7f9a1b2c4d6e8f0a1b3c5d7e9f1a2b4c6d8e0f'

/** One subject's decision on an approval. */
export const ApprovalDecision = z
  .object({
    by: z.string(),
    decision: z.enum(DECISIONS),
    comment: z.string().nullable(),
    // Any JSON, null included: a nullable "anything" would be an anyOf that matches anything.
    input: JsonValue.meta({
      description: "The decider's input, as the approval step's record keeps it; null when none",
    }),
    at: Timestamp,
  })
  .meta({ id: 'ApprovalDecision' })

/** An approval: what the approvers are shown, who may decide, and the decisions so far. */
export const ApprovalView = z
  .object({
    id: z.uuid(),
    runId: z.uuid(),
    step: z.string(),
    status: z.enum(APPROVAL_STATUSES),
    title: z.string(),
    details: z.unknown().meta({ description: 'What the step shows besides the title' }),
    materialHash: z.string().meta({
      description: 'SHA-256 of the canonical JSON of { title, details }; send it with a decision',
    }),
    approvers: z.object({
      subjects: z.array(z.string()).optional(),
      scopes: z.array(z.string()).optional(),
    }),
    required: z.int().meta({ description: 'Approvals from distinct subjects needed' }),
    separationOfDuties: z.boolean(),
    decisions: z.array(ApprovalDecision),
    expiresAt: Timestamp.nullable(),
    createdAt: Timestamp,
    settledAt: Timestamp.nullable(),
  })
  .meta({
    id: 'Approval',
    examples: [
      {
        id: APPROVAL_ID,
        runId: '0b8f5a52-6c1e-4f7a-9a43-2b1d0c9e7f11',
        step: 'review',
        status: 'pending',
        title: 'Refund 120 to c_42?',
        details: null,
        materialHash: MATERIAL_HASH,
        approvers: {},
        required: 1,
        separationOfDuties: true,
        decisions: [],
        expiresAt: '2025-02-02T09:30:01.000Z',
        createdAt: '2025-01-31T09:30:01.000Z',
        settledAt: null,
      },
    ],
  })
/** An approval. */
export type ApprovalView = z.infer<typeof ApprovalView>

/** `GET /v1/approvals`. */
export const ApprovalPage = pageOf(ApprovalView).meta({ id: 'ApprovalPage' })
/** `GET /v1/approvals`. */
export type ApprovalPage = z.infer<typeof ApprovalPage>

/** `GET /v1/approvals` query. */
export const ListApprovalsQuery = PageQuery.extend({
  status: z.enum(APPROVAL_STATUSES).optional(),
  runId: Text().max(64).optional().meta({ description: 'Only this run’s approvals' }),
})

const DAY_SECONDS = 24 * 60 * 60

/** `POST /v1/approvals/{id}/links`. */
export const IssueLinkBody = z
  .strictObject({
    recipient: Text()
      .min(1)
      .max(255)
      .meta({ description: 'The subject the link decides as; the approval’s rules must admit it' }),
    expiresInSeconds: z
      .int()
      .min(60)
      .max(30 * DAY_SECONDS)
      .default(3 * DAY_SECONDS)
      .meta({ description: "The link's lifetime; never beyond the approval's own expiry" }),
  })
  .meta({ id: 'IssueLinkBody', examples: [{ recipient: 'bob', expiresInSeconds: 86400 }] })
/** `POST /v1/approvals/{id}/links`. */
export type IssueLinkBody = z.infer<typeof IssueLinkBody>

/** A page link: handed out once, in this answer only. */
export const ApprovalLinkView = z
  .object({
    url: z.string().meta({ description: 'The approval page `/inbox/a/{token}`: a credential' }),
    recipient: z.string(),
    expiresAt: Timestamp,
  })
  .meta({
    id: 'ApprovalLink',
    examples: [
      {
        url: 'http://127.0.0.1:3000/inbox/a/Qm9i...',
        recipient: 'bob',
        expiresAt: '2025-02-03T09:30:01.000Z',
      },
    ],
  })
/** A page link. */
export type ApprovalLinkView = z.infer<typeof ApprovalLinkView>

/** A decider's input: kept with the decision, never merged into the run's state. */
export const DecisionInput = JsonObject.optional().meta({
  description:
    "Saved with the decision in the approval step's record (under its `saveAs` key), checked " +
    "against the step's `schema`; top-level keys must not start with `__`",
})

/** `POST /v1/approvals/{id}/decision` headers. */
export const DecisionHeaders = z.looseObject({
  'idempotency-key': z
    .string()
    .min(1)
    .max(255)
    .optional()
    .meta({
      description:
        'A retried request with this key and the same body answers as the first did; ' +
        'another body is refused (409)',
      examples: ['review-5d1c-alice-1'],
    }),
})

/** `POST /v1/approvals/{id}/decision`. */
export const DecisionBody = z
  .strictObject({
    decision: z.enum(DECISIONS),
    comment: Text().max(2000).optional(),
    input: DecisionInput,
    materialHash: z
      .string()
      .regex(/^[0-9a-f]{64}$/, { error: 'must be a lowercase hex SHA-256' })
      .optional()
      .meta({ description: 'The materialHash the decider was shown; 409 when it is stale' }),
  })
  .meta({
    id: 'DecisionBody',
    examples: [{ decision: 'approve', comment: 'Looks right', materialHash: MATERIAL_HASH }],
  })
/** `POST /v1/approvals/{id}/decision`. */
export type DecisionBody = z.infer<typeof DecisionBody>
