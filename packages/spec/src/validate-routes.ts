import { toPointer, type SpecProblem } from './problem.js'
import { allRoutes, stepEntries } from './spec-walk.js'

/**
 * Entry, route targets and reachability: the entry must be a step, every route must name a
 * step (or null), and every step must be reachable from the entry.
 */
export function routeProblems(doc: unknown): SpecProblem[] {
  const problems: SpecProblem[] = []
  const names = new Set(stepEntries(doc).map(([name]) => name))
  const entry = (doc as { entry?: unknown } | null)?.entry
  const routes = allRoutes(doc)
  if (typeof entry === 'string' && entry !== '' && !names.has(entry)) {
    problems.push({ path: '/entry', message: `entry step "${entry}" does not exist` })
  }
  for (const r of routes) {
    if (r.to !== null && !names.has(r.to)) {
      problems.push({ path: toPointer(r.path), message: `route to missing step "${r.to}"` })
    }
  }
  if (typeof entry !== 'string' || !names.has(entry)) return problems
  // Routes by source step, so the walk is linear in the number of routes.
  const targets = new Map<string, string[]>()
  for (const r of routes) {
    if (r.to === null || !names.has(r.to)) continue
    const list = targets.get(r.from)
    if (list) list.push(r.to)
    else targets.set(r.from, [r.to])
  }
  const reached = new Set([entry])
  const queue = [entry]
  for (let i = 0; i < queue.length; i++) {
    for (const to of targets.get(queue[i]!) ?? []) {
      if (reached.has(to)) continue
      reached.add(to)
      queue.push(to)
    }
  }
  for (const name of names) {
    if (!reached.has(name)) {
      problems.push({
        path: toPointer(['steps', name]),
        message: `step "${name}" is not reachable from the entry "${entry}"`,
      })
    }
  }
  return problems
}
