import { z } from 'zod'

const Where = {
  /** The kernel run the step belongs to (`<root>/<subgraph step>` for a nested run). */
  runId: z.string().min(1),
  step: z.string().min(1),
  /** The step's seq in its kernel run. */
  seq: z.int().positive(),
}

/** An approval step waits for a decision on the material it shows. */
export const ApprovalReason = z.object({
  kind: z.literal('approval'),
  ...Where,
  title: z.string(),
  details: z.json(),
  /** `approvalMaterialHash(title, details)`: what a decision must name. */
  materialHash: z.string(),
  approvers: z
    .object({ subjects: z.array(z.string()).optional(), scopes: z.array(z.string()).optional() })
    .nullable(),
  required: z.int().positive(),
  separationOfDuties: z.boolean(),
  /** null: no timeout. */
  timeoutMs: z.number().nonnegative().nullable(),
  onTimeout: z.enum(['expire', 'fail']),
  saveAs: z.string(),
  /** JSON Schema a decision's `input` must satisfy; null: any object. */
  inputSchema: z.json().nullable(),
  /** The agent tool call the approval is about; absent for an approval step. */
  callId: z.string().min(1).optional(),
})
export type ApprovalReason = z.infer<typeof ApprovalReason>

/**
 * An agent step waits for a decision on each of several tool calls of one assistant turn: one
 * approval per call, all open at once and decided independently; the run resumes once every one
 * is settled.
 */
export const ApprovalsReason = z.object({
  kind: z.literal('approvals'),
  ...Where,
  approvals: z.array(ApprovalReason.extend({ callId: z.string().min(1) })).min(1),
})
export type ApprovalsReason = z.infer<typeof ApprovalsReason>

/** An input step waits for outside input. */
export const InputReason = z.object({
  kind: z.literal('input'),
  ...Where,
  prompt: z.string().nullable(),
  schema: z.json().nullable(),
  saveAs: z.string().nullable(),
})
export type InputReason = z.infer<typeof InputReason>

/** A wait step sleeps until `until` (ISO 8601). */
export const WaitReason = z.object({
  kind: z.literal('wait'),
  ...Where,
  until: z.iso.datetime(),
})
export type WaitReason = z.infer<typeof WaitReason>

/**
 * Why a compiled step yielded: the `__yield_reason` it returns, which the kernel hands to the
 * host as `RunResult.yield.reason` (passed up from subgraphs). The host parses it with this
 * schema; nothing else about a yield travels outside the run's result.
 */
export const YieldReason = z.discriminatedUnion('kind', [
  ApprovalReason,
  ApprovalsReason,
  InputReason,
  WaitReason,
])
export type YieldReason = z.infer<typeof YieldReason>

/** A yield reason as the protocol type, or null when the step gave none or another shape. */
export function readYieldReason(reason: unknown): YieldReason | null {
  const parsed = YieldReason.safeParse(reason)
  return parsed.success ? parsed.data : null
}
