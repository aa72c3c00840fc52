import { claimRun, createWebhook, withTenant, type Database, type StepCheckpoint } from '@weave/db'
import { randomTenant, seedRunIn } from './test-database.js'

/** The checkpoint namespace the step-write tests write under. */
export const STEP_NS = '0:checkpoint:g'

/** A run claimed by an executor: what its step writes are fenced by. */
export interface ClaimedRun {
  tenant: string
  runId: string
  webhookId: string
  leaseToken: string
}

/** Claims the queued run `runId` of `tenant` for `job-1`. */
export async function claimQueuedRun(
  database: Database,
  tenant: string,
  runId: string,
): Promise<Omit<ClaimedRun, 'webhookId'>> {
  const claimed = await withTenant(database, tenant, (tx) =>
    claimRun(tx, runId, ['queued'], 'job-1'),
  )
  if (typeof claimed?.leaseToken !== 'string') throw new Error(`run ${runId} was not claimed`)
  return { tenant, runId, leaseToken: claimed.leaseToken }
}

/** A run of `tenant`, claimed by `job-1`. */
export async function claimedRunOf(
  database: Database,
  tenant: string,
): Promise<Omit<ClaimedRun, 'webhookId'>> {
  const run = await seedRunIn(database, tenant)
  return claimQueuedRun(database, tenant, run.id)
}

/** A run of a fresh tenant, claimed by `job-1`, with a webhook subscribed to step.completed. */
export async function claimedRun(database: Database, secretsKey: Buffer): Promise<ClaimedRun> {
  const tenant = randomTenant()
  const { webhook } = await withTenant(database, tenant, (tx) =>
    createWebhook(tx, secretsKey, {
      url: 'https://hooks.test/steps',
      events: ['step.completed'],
      createdBy: 'admin',
    }),
  )
  return { ...(await claimedRunOf(database, tenant)), webhookId: webhook.id }
}

/** The write of step `a` at `seq` of the root run, latest and history keys. */
export function stepWrite(
  c: { tenant: string; runId: string; leaseToken: string },
  seq: number,
  extra: Partial<StepCheckpoint> = {},
): StepCheckpoint {
  return {
    tenant: c.tenant,
    runId: c.runId,
    leaseToken: c.leaseToken,
    ns: STEP_NS,
    keys: [c.runId, `${c.runId}/${seq}`],
    value: JSON.stringify({ seq, state: { n: seq } }),
    latestKey: c.runId,
    seq,
    isRoot: true,
    isFailed: false,
    event: { step: 'a', seq },
    ...extra,
  }
}
