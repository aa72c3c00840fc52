import { isJsonObject, isProtocolKey } from './json-value.js'
import { toPointer, type SpecProblem } from './problem.js'
import { stepEntries } from './spec-walk.js'

/**
 * The state keys the approval steps of a graph save their decision records under (`saveAs`,
 * default the step's name). Only a settled decision may write them.
 */
export function approvalRecordKeys(doc: unknown): string[] {
  const keys = new Set<string>()
  for (const [name, step] of stepEntries(doc)) {
    if (step.kind !== 'approval') continue
    keys.add(typeof step.saveAs === 'string' ? step.saveAs : name)
  }
  return [...keys]
}

/** The keys a step of another kind writes, where the spec names them. */
function writtenKeys(name: string, step: Record<string, unknown>): string[] {
  const keys: string[] = []
  if (step.kind === 'set' && isJsonObject(step.values)) keys.push(...Object.keys(step.values))
  if (typeof step.saveAs === 'string') keys.push(step.saveAs)
  // A wait step keeps its timer under its name unless it says otherwise.
  else if (step.kind === 'wait') keys.push(name)
  return keys
}

/**
 * Registration refuses a graph in which another step writes an approval step's record key: the
 * record would then say "approved" without a decision.
 */
export function approvalRecordProblems(doc: unknown): SpecProblem[] {
  const records = new Set(approvalRecordKeys(doc))
  if (records.size === 0) return []
  const problems: SpecProblem[] = []
  for (const [name, step] of stepEntries(doc)) {
    if (step.kind === 'approval') continue
    for (const key of writtenKeys(name, step)) {
      if (!records.has(key)) continue
      const field = step.kind === 'set' && isJsonObject(step.values) && key in step.values
      problems.push({
        path: toPointer(field ? ['steps', name, 'values', key] : ['steps', name, 'saveAs']),
        message: `"${key}" holds an approval step's decision record; only the approval writes it`,
      })
    }
  }
  return problems
}

/**
 * Why a state a client supplies (a run's input, a fork's or resume's input) cannot enter a
 * run: a top-level key with the kernel's reserved `__` prefix (its control keys: budget,
 * yields), or a key an approval step keeps its decision record under (`protectedKeys`).
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
        message: `"${key}" is an approval step's decision record; only a decision writes it`,
      })
    }
  }
  return problems
}
