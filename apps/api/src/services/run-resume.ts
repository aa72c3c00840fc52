import {
  approvalsUsedUpTo,
  getGraphVersion,
  readWaitingOn,
  requestResume,
  withTenant,
  type ResumeJob,
  type RunRow,
  type WaitingOn,
} from '@weave/db'
import type { State } from '@weave/kernel'
import { GraphSpec } from '@weave/spec'
import type { Principal } from '../auth/principal.js'
import { ConflictError } from '../http/app-errors.js'
import { changedApprovals, continuedState } from './approved-material.js'
import { readCheckpoint, tenantStore } from './checkpoints.js'
import { refuseClientState, schemaProblems } from './client-input.js'
import type { AuditContext, ServiceDeps } from './deps.js'
import { requireRun } from './run-views.js'
import { auditRequest } from './audit-request.js'

type InputWait = Extract<WaitingOn, { kind: 'input' }>

/** How a run can be resumed: the input step it waits on, or a retry of its failure. */
type ResumePlan = { reason: 'input'; waiting: InputWait } | { reason: 'retry' }

/**
 * Records a client's resume of a run on the run itself (its pending resume), checked and taken
 * as a compare-and-set at the run's checkpoint, and returns the job that points a worker at it;
 * the job carries no input (the worker reads it from the run). Of two concurrent resumes one
 * is recorded (with its audit event) and the other refused (run-control.int.test.ts).
 * @throws {NotFoundError} `run-not-found`
 * @throws {ConflictError} `run-not-resumable`: the run waits on no input step and has not failed,
 *   a resume is already pending, or the run moved on; `approval-material-changed`: a retry's
 *   input changes what an approval used by the run was approved on
 * @throws {BadRequestError} input with a reserved or approval record key, or that fails the input
 *   step's schema
 */
export async function recordResume(
  deps: Pick<ServiceDeps, 'database'>,
  tenant: string,
  principal: Principal,
  id: string,
  input: State,
  context: AuditContext,
): Promise<ResumeJob> {
  const { database } = deps
  const { run, spec } = await withTenant(database, tenant, async (tx) => {
    const run = await requireRun(tx, id)
    const version = await getGraphVersion(tx, run.graphName, run.graphVersion)
    // Runs reference their version by foreign key: a missing one is a server fault, not a 404.
    if (!version) throw new Error(`run ${run.id} has no graph version ${run.graphVersion}`)
    return { run, spec: GraphSpec.parse(version.spec) }
  })
  const plan = resumePlan(run)
  refuseClientState(
    input,
    spec,
    plan.reason === 'input' ? schemaProblems(plan.waiting.schema, input) : [],
  )
  if (plan.reason === 'retry' && Object.keys(input).length > 0) {
    await refuseChangedMaterial(database, tenant, run, spec, input)
  }
  const atSeq = run.checkpointSeq
  await withTenant(database, tenant, async (tx) => {
    const taken = await requestResume(tx, run.id, {
      reason: plan.reason,
      input,
      atSeq,
      by: principal.subject,
      at: new Date().toISOString(),
    })
    if (!taken) {
      // A failed run of a concurrency key is retried only into a free slot (runs.ts).
      const detail =
        plan.reason === 'retry' && run.concurrencyKey !== null
          ? 'A resume of this run is already pending, the run moved on, or its concurrency key ' +
            'has no free slot (or runs wait in its line); reload it, or retry once a run of the ' +
            'key ends.'
          : 'A resume of this run is already pending, or the run moved on; reload it.'
      throw new ConflictError(detail, { problem: 'run-not-resumable' })
    }
    await auditRequest(
      tx,
      { principal, context },
      {
        action: 'run.resumed',
        target: { kind: 'run', id: run.id },
        details: { reason: plan.reason, atSeq },
      },
    )
  })
  return { runId: run.id, tenant, reason: plan.reason, atSeq }
}

/**
 * A run waiting on an `input` step, or a failed run (a retry). Approvals are decided and timers
 * fire on their own.
 */
function resumePlan(run: RunRow): ResumePlan {
  if (run.status === 'failed') return { reason: 'retry' }
  const waitingOn = readWaitingOn(run.waitingOn)
  if (run.status === 'waiting' && waitingOn?.kind === 'input') {
    return { reason: 'input', waiting: waitingOn }
  }
  throw new ConflictError(notResumableReason(run, waitingOn), { problem: 'run-not-resumable' })
}

function notResumableReason(run: RunRow, waitingOn: WaitingOn | null): string {
  if (run.status === 'waiting' && waitingOn?.kind === 'approval') {
    return 'The run waits on an approval; decide it with POST /v1/approvals/{id}/decision.'
  }
  if (run.status === 'waiting' && waitingOn?.kind === 'wait') {
    return 'The run waits on a timer; it resumes by itself when the timer fires.'
  }
  return `The run is ${run.status}; only a run waiting for input or a failed run can be resumed.`
}

/**
 * Refuses a retry whose input changes the material of an approval the run already used: the
 * retried steps would act on something nobody approved. A fork from where the approval was
 * asked runs its step again, so a person is asked.
 * @throws {ConflictError} naming the first such approval step
 */
async function refuseChangedMaterial(
  database: ServiceDeps['database'],
  tenant: string,
  run: RunRow,
  spec: GraphSpec,
  input: State,
): Promise<void> {
  const checkpoint = await readCheckpoint(tenantStore(database, tenant), run.graphName, run.id)
  if (!checkpoint) return
  const used = await withTenant(database, tenant, (tx) =>
    approvalsUsedUpTo(tx, run.id, run.checkpointSeq),
  )
  const after = continuedState(spec, checkpoint.state, input)
  const [changed] = await changedApprovals(spec, used, checkpoint.state, after)
  if (!changed) return
  throw new ConflictError(
    `The input changes what approval step "${changed.step}" was approved on; a retry cannot ` +
      `change approved material. Fork the run at checkpoint ${changed.rootSeq} to ask again.`,
    {
      problem: 'approval-material-changed',
      extensions: {
        step: changed.step,
        approvalId: changed.approvalId,
      },
    },
  )
}
