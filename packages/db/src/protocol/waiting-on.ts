import { z } from 'zod'

const Step = z.string().min(1)
// The seq of the run's checkpoint at which it waits: a resume applies its input only there.
const AtSeq = z.int().nonnegative()

/** The run waits for a decision on an approval. */
export const ApprovalWait = z.object({
  kind: z.literal('approval'),
  step: Step,
  approvalId: z.uuid(),
  /**
   * Every approval the run waits on, when an agent step asked about several tool calls of one
   * turn at once (`approvalId` is the first); it resumes once all are settled.
   */
  approvalIds: z.array(z.uuid()).optional(),
  atSeq: AtSeq,
})

/** The run waits for outside input (`POST /v1/runs/{id}/resume`). */
export const InputWait = z.object({
  kind: z.literal('input'),
  step: Step,
  atSeq: AtSeq,
  prompt: z.string().nullable(),
  /** JSON Schema the input must satisfy; null: any JSON object. */
  schema: z.json().nullable(),
  saveAs: z.string().nullable(),
})

/** The run sleeps until a `wait` step's timer fires. */
export const TimerWait = z.object({
  kind: z.literal('wait'),
  step: Step,
  atSeq: AtSeq,
  until: z.iso.datetime({ offset: true }),
})

/** What a waiting run waits for; stored in `runs.waiting_on` and sent in `run.waiting` events. */
export const WaitingOn = z.discriminatedUnion('kind', [ApprovalWait, InputWait, TimerWait])
/** What a waiting run waits for. */
export type WaitingOn = z.infer<typeof WaitingOn>

/**
 * A stored `waiting_on` value as the protocol type, or null when there is none or it is not one
 * (a row written by a version that stored another shape is then treated as waiting on nothing
 * the reconciler can repair, never misread).
 */
export function readWaitingOn(value: unknown): WaitingOn | null {
  if (value === null || value === undefined) return null
  const parsed = WaitingOn.safeParse(value)
  return parsed.success ? parsed.data : null
}
