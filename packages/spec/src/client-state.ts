import { isJsonObject, isProtocolKey } from './json-value.js'
import { toPointer, type SpecProblem } from './problem.js'
import { stepEntries } from './spec-walk.js'

/**
 * The state keys that hold decision records (`saveAs`, default the step's name): an approval
 * step's record, and an agent step's conversation (its calls, their decisions, its counters
 * against its limits). Only the run writes them: a client's input may not.
 */
export function approvalRecordKeys(doc: unknown): string[] {
  const keys = new Set<string>()
  for (const [name, step] of stepEntries(doc)) {
    if (step.kind !== 'approval' && step.kind !== 'agent') continue
    keys.add(typeof step.saveAs === 'string' ? step.saveAs : name)
  }
  return [...keys]
}

/** The keys a step of another kind writes, where the spec names them. */
function writtenKeys(name: string, step: Record<string, unknown>): string[] {
  const keys: string[] = []
  if (step.kind === 'set' && isJsonObject(step.values)) keys.push(...Object.keys(step.values))
  if (typeof step.saveAs === 'string') keys.push(step.saveAs)
  // A wait step keeps its timer, an agent step its conversation, an approval step its record and
  // an http or llm step its answer under its name unless it says otherwise.
  else if (['wait', 'agent', 'approval', 'http', 'llm'].includes(step.kind as string)) {
    keys.push(name)
  }
  return keys
}

/**
 * Registration refuses a graph in which another step writes an approval or agent step's record
 * key: the record would then say "approved", or the conversation hold a call nobody decided,
 * without a decision.
 */
export function approvalRecordProblems(doc: unknown): SpecProblem[] {
  const owners = new Map<string, { name: string; kind: unknown }>()
  for (const [name, step] of stepEntries(doc)) {
    if (step.kind !== 'approval' && step.kind !== 'agent') continue
    const key = typeof step.saveAs === 'string' ? step.saveAs : name
    if (!owners.has(key)) owners.set(key, { name, kind: step.kind })
  }
  if (owners.size === 0) return []
  const problems: SpecProblem[] = []
  for (const [name, step] of stepEntries(doc)) {
    for (const key of writtenKeys(name, step)) {
      const owner = owners.get(key)
      if (owner === undefined || owner.name === name) continue
      // Approval steps may share a record key (one decision record, asked in turns).
      if (step.kind === 'approval' && owner.kind === 'approval') continue
      const field = step.kind === 'set' && isJsonObject(step.values) && key in step.values
      problems.push({
        path: toPointer(field ? ['steps', name, 'values', key] : ['steps', name, 'saveAs']),
        message: `"${key}" holds ${owner.kind === 'agent' ? 'an agent' : 'an approval'} step's decision records; only that step writes it`,
      })
    }
  }
  return problems
}

/**
 * Why a state a client supplies (a run's input, a fork's or resume's input) cannot enter a
 * run: a top-level key with the kernel's reserved `__` prefix (its control keys: budget,
 * yields), or a key an approval or agent step keeps decision records under (`protectedKeys`).
 * Paths point into the input.
 */
export function clientStateProblems(
  input: unknown,
  protectedKeys: readonly string[] = [],
): SpecProblem[] {
  if (!isJsonObject(input)) return []
  const problems: SpecProblem[] = []
  for (const key of Object.keys(input)) {
    if (isProtocolKey(key)) {
      problems.push({ path: toPointer([key]), message: `"${key}" uses the reserved "__" prefix` })
    } else if (protectedKeys.includes(key)) {
      problems.push({
        path: toPointer([key]),
        message: `"${key}" holds an approval or agent step's decision records; only the run writes it`,
      })
    }
  }
  return problems
}
