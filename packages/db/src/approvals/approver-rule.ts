import type { Approvers } from '../schema/approvals.js'

/** What an approval's rules say about who may decide it. */
export interface ApproverRules {
  approvers: Approvers
  separationOfDuties: boolean
}

/** Why a subject may not decide an approval. */
export type ApproverRefusal = 'separation-of-duties' | 'not-an-approver'

/**
 * The one approver rule, applied on every path that decides (the decision endpoint, an approval
 * link): under `separationOfDuties` the run's starter may not decide; when `approvers` lists
 * subjects or scopes, the subject must be listed or hold one of the scopes. Null when the subject
 * may decide.
 */
export function approverRefusal(
  rules: ApproverRules,
  runStarter: string,
  subject: string,
  subjectScopes: readonly string[],
): ApproverRefusal | null {
  if (rules.separationOfDuties && subject === runStarter) return 'separation-of-duties'
  const { subjects, scopes } = rules.approvers
  const isRestricted = Boolean(subjects?.length) || Boolean(scopes?.length)
  if (!isRestricted) return null
  const isListed =
    (subjects ?? []).includes(subject) ||
    (scopes ?? []).some((scope) => subjectScopes.includes(scope))
  return isListed ? null : 'not-an-approver'
}

/**
 * Whether the approval may be decided through a link sent to an integration (a webhook), whose
 * clicker is unknown: only when no rule depends on who decides. Under separation of duties or
 * named approvers such a link could let a refused subject decide, so none is issued.
 */
export function admitsIntegrationLinks(rules: ApproverRules): boolean {
  const { subjects, scopes } = rules.approvers
  return !rules.separationOfDuties && !subjects?.length && !scopes?.length
}
