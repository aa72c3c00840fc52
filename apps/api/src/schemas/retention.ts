import { CheckpointRetention } from '@weave/spec'
import { z } from 'zod'
import { Timestamp } from './common.js'

const CHECKPOINTS_DESCRIPTION =
  'How much of a finished run\'s checkpoint history is kept: `"all"`, `"none"` (only the ' +
  'run\'s latest checkpoint, its final state) or `{ "last": n }` (the newest n entries). A run ' +
  'that has not finished keeps all of it.'

const RUN_DAYS_DESCRIPTION =
  'Days after a run finished when it is deleted with its checkpoints, events and webhook ' +
  'deliveries; null keeps runs. The audit log is never pruned.'

/** The body of `PUT /v1/retention`. */
export const RetentionPolicyBody = z
  .strictObject({
    checkpoints: CheckpointRetention.meta({ description: CHECKPOINTS_DESCRIPTION }),
    runDays: z.int().min(1).max(36_500).nullable().meta({ description: RUN_DAYS_DESCRIPTION }),
  })
  .meta({
    id: 'PutRetentionPolicyBody',
    examples: [{ checkpoints: { last: 10 }, runDays: 90 }],
  })

/** The tenant's retention policy. */
export const RetentionPolicyView = z
  .object({
    checkpoints: CheckpointRetention.meta({ description: CHECKPOINTS_DESCRIPTION }),
    runDays: z.int().nullable().meta({ description: RUN_DAYS_DESCRIPTION }),
    updatedBy: z.string().nullable().meta({ description: 'Who set it; null: never set' }),
    updatedAt: Timestamp.nullable().meta({ description: 'When it was set; null: never set' }),
  })
  .meta({
    id: 'RetentionPolicy',
    description:
      "The tenant's retention policy; a graph's own `retention` overrides it field by field. " +
      'Each retention pass applies the policy then in force to every finished run it has not ' +
      'visited yet, so the first pass after a policy is set applies it to runs that finished ' +
      'before as well; a run already visited keeps what was decided for it then.',
    examples: [
      {
        checkpoints: { last: 10 },
        runDays: 90,
        updatedBy: 'ops@acme',
        updatedAt: '2025-01-31T10:00:00.000Z',
      },
    ],
  })
export type RetentionPolicyView = z.infer<typeof RetentionPolicyView>
