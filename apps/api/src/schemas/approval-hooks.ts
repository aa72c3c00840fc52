import { APPROVAL_STATUSES, DECISIONS } from '@weave/db'
import { z } from 'zod'
import { DecisionInput } from './approvals.js'
import { Text } from './common.js'

/** `POST /v1/approval-hooks/{token}` path: the token of an `approveUrl` or `rejectUrl`. */
export const ApprovalHookParams = z.object({
  token: z.string().meta({ description: 'The single-use token at the end of the link' }),
})

/** `POST /v1/approval-hooks/{token}` body; a request may send none. */
export const ApprovalHookBody = z
  .strictObject({
    comment: Text().max(2000).optional(),
    input: DecisionInput,
  })
  .meta({ id: 'ApprovalHookBody', examples: [{ comment: 'Approved from the chat' }] })
/** `POST /v1/approval-hooks/{token}` body. */
export type ApprovalHookBody = z.infer<typeof ApprovalHookBody>

/** What a used approval link decided, and where that left the approval. */
export const ApprovalHookResult = z
  .object({
    approvalId: z.uuid(),
    decision: z.enum(DECISIONS),
    status: z.enum(APPROVAL_STATUSES).meta({
      description: '`pending` when the approval needs more approvals',
    }),
  })
  .meta({
    id: 'ApprovalHookResult',
    examples: [
      {
        approvalId: '5d1c2e3f-4a5b-4c6d-8e7f-9a0b1c2d3e4f',
        decision: 'approve',
        status: 'approved',
      },
    ],
  })
/** What a used approval link decided. */
export type ApprovalHookResult = z.infer<typeof ApprovalHookResult>
