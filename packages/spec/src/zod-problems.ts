import type { z } from 'zod'
import { toPointer, type SpecProblem } from './problem.js'

type Issue = z.core.$ZodIssue

// Of a union's alternatives, the one the author most likely meant: not rejected for its
// type at the union's own path, then with the fewest issues.
function likeliestAlternative(alternatives: Issue[][]): Issue[] | undefined {
  const plausible = alternatives.filter(
    (issues) => !issues.some((i) => i.path.length === 0 && i.code === 'invalid_type'),
  )
  if (plausible.length === 0) return undefined
  return plausible.reduce((best, issues) => (issues.length < best.length ? issues : best))
}

function collect(issue: Issue, prefix: PropertyKey[], out: SpecProblem[]): void {
  const path = [...prefix, ...issue.path]
  switch (issue.code) {
    case 'unrecognized_keys':
      for (const key of issue.keys) {
        out.push({ path: toPointer([...path, key]), message: `unknown field "${key}"` })
      }
      return
    case 'invalid_key':
      for (const inner of issue.issues) {
        out.push({ path: toPointer(path), message: `invalid key: ${inner.message}` })
      }
      return
    case 'invalid_union': {
      const best = issue.errors.length > 0 ? likeliestAlternative(issue.errors) : undefined
      if (best === undefined) {
        out.push({ path: toPointer(path), message: issue.message })
        return
      }
      for (const inner of best) collect(inner, path, out)
      return
    }
    case 'invalid_type':
      out.push({
        path: toPointer(path),
        message: issue.input === undefined ? 'required' : issue.message,
      })
      return
    default:
      out.push({ path: toPointer(path), message: issue.message })
  }
}

/** Turns zod issues into problems with JSON Pointer paths, unions resolved to one alternative. */
export function zodIssuesToProblems(issues: ReadonlyArray<Issue>): SpecProblem[] {
  const out: SpecProblem[] = []
  for (const issue of issues) collect(issue, [], out)
  return out
}
