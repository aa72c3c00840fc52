import { z } from 'zod'

/**
 * A resume a client asked for (`POST /v1/runs/{id}/resume`), kept on the run until a worker takes
 * it: the queue job only points at it, so a job lost with Redis is rebuilt from Postgres.
 */
export const PendingResume = z.object({
  reason: z.enum(['input', 'retry']),
  /** Merged into the run's state by the resume. */
  input: z.record(z.string(), z.json()),
  /** The checkpoint the input was meant for: the resume applies it only while still there. */
  atSeq: z.int().nonnegative(),
  /** The subject who asked. */
  by: z.string(),
  at: z.iso.datetime(),
})
/** A resume a client asked for, not yet taken by a worker. */
export type PendingResume = z.infer<typeof PendingResume>

/** A stored `pending_resume` as the protocol type, or null. */
export function readPendingResume(value: unknown): PendingResume | null {
  if (value === null || value === undefined) return null
  const parsed = PendingResume.safeParse(value)
  return parsed.success ? parsed.data : null
}
