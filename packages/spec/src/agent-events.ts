import { z } from 'zod'

const Step = z.string().min(1)
const Call = { step: Step, callId: z.string().min(1), tool: z.string().min(1) }

/**
 * What an agent step did in one unit of work, as run events: the host appends them with the
 * unit's checkpoint, so they are on the record exactly when the unit is. `step` is the step's
 * name in its own graph; the host replaces it with the step's path from the root run.
 */
export const AGENT_EVENT_DATA = {
  /** The model answered: its text and the calls it asked for. */
  'agent.message': z.object({
    step: Step,
    turn: z.int().positive(),
    content: z.string().nullable(),
    toolCalls: z.array(z.object({ callId: z.string(), tool: z.string() })),
  }),
  /** A call the model asked for, with its arguments as the model wrote them. */
  'tool.requested': z.object({ ...Call, arguments: z.string() }),
  /** A person's decision on a call the rules sent to them settled it. */
  'tool.decided': z.object({
    ...Call,
    approvalId: z.string().nullable(),
    status: z.enum(['approved', 'rejected', 'expired']),
  }),
  /**
   * The call ran; its result went back to the model. `argumentsDigest` is the hex SHA-256 of the
   * canonical JSON of the arguments it ran with (the approver's, when `edited`).
   */
  'tool.completed': z.object({
    ...Call,
    readOnly: z.boolean(),
    argumentsDigest: z.string().nullable(),
    approvalId: z.string().nullable(),
    edited: z.boolean(),
  }),
  /** The call never ran: the rules deny it, or the call itself was invalid. */
  'tool.denied': z.object({ ...Call, reason: z.enum(['policy', 'invalid']) }),
  /** The conversation ended before the model finished: a limit or a budget was reached. */
  'agent.stopped': z.object({
    step: Step,
    reason: z.enum(['max-turns', 'max-tool-calls', 'tokens', 'usd']),
    usage: z.object({
      inputTokens: z.int().min(0),
      outputTokens: z.int().min(0),
      usd: z.number().min(0).optional(),
    }),
  }),
} as const

/** An agent event type. */
export type AgentEventType = keyof typeof AGENT_EVENT_DATA

/** One event of an agent's unit of work. */
export type AgentEvent = {
  [T in AgentEventType]: { type: T; data: z.infer<(typeof AGENT_EVENT_DATA)[T]> }
}[AgentEventType]
