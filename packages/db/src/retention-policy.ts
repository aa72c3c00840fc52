import { CheckpointRetention, RetentionSpec } from '@weave/spec'
import { z } from 'zod'

/** A tenant's retention policy, or the policy in force for one run once a graph's is applied. */
export const RetentionPolicy = z.strictObject({
  checkpoints: CheckpointRetention,
  runDays: z.int().min(1).max(36_500).nullable(),
})
export type RetentionPolicy = z.infer<typeof RetentionPolicy>

/** What Weave does without any policy: every checkpoint and every run is kept. */
export const KEEP_EVERYTHING: RetentionPolicy = { checkpoints: 'all', runDays: null }

const DAY_MS = 24 * 3600 * 1000

/**
 * The policy of one run: each field the graph's spec sets wins, the tenant's fills in the rest,
 * and what neither sets keeps everything (retention-policy.test.ts). A stored value that does
 * not parse (a spec from before retention was known) counts as unset rather than failing the pass.
 */
export function resolveRetention(graph: unknown, tenant: unknown): RetentionPolicy {
  const own = RetentionSpec.safeParse(graph ?? {})
  const fallback = RetentionPolicy.safeParse(tenant)
  const base = fallback.success ? fallback.data : KEEP_EVERYTHING
  if (!own.success) return base
  return {
    checkpoints: own.data.checkpoints ?? base.checkpoints,
    runDays: own.data.runDays ?? base.runDays,
  }
}

/**
 * How many of each finished run's history entries to keep: null keeps all, 0 none (the run's
 * latest checkpoint, which holds its final state, is not a history entry and always stays).
 */
export function historyToKeep(checkpoints: CheckpointRetention): number | null {
  if (checkpoints === 'all') return null
  if (checkpoints === 'none') return 0
  return checkpoints.last
}

/** When a run that finished at `finishedAt` is deleted under `runDays`; null: never. */
export function expiryOf(finishedAt: Date, runDays: number | null): Date | null {
  return runDays === null ? null : new Date(finishedAt.getTime() + runDays * DAY_MS)
}
