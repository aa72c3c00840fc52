// Lenient readers over a spec document that may not have passed the schema, so structural
// checks can run beside schema errors and every problem is reported at once.

type Path = ReadonlyArray<string | number>

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** One route out of a step: where it points and where it is written in the document. */
export interface RouteRef {
  from: string
  /** The target step, or null for the end of the run. */
  to: string | null
  label?: string
  path: Path
}

/**
 * A reference to another graph (a subgraph step, at the top level or in a parallel branch, or an
 * agent's subgraph tool) and where its `graph` field is. `mustFinish` names what cannot wait.
 */
export interface SubgraphRef {
  graph: string
  version?: number
  path: Path
  mustFinish?: 'a parallel branch' | 'an agent tool'
}

/** The `[name, step]` pairs of `doc.steps` that are objects. */
export function stepEntries(doc: unknown): Array<[string, Record<string, unknown>]> {
  if (!isRecord(doc) || !isRecord(doc.steps)) return []
  return Object.entries(doc.steps).filter((e): e is [string, Record<string, unknown>] =>
    isRecord(e[1]),
  )
}

function target(value: unknown): string | null | undefined {
  if (value === null || typeof value === 'string') return value
  return undefined
}

/**
 * The routes of one step's `next` (absent or null: one route to the end). Branch defaults and
 * `else`, when absent, are routes to the end.
 */
export function routesOf(from: string, next: unknown): RouteRef[] {
  const base = ['steps', from, 'next']
  if (next === undefined || next === null) return [{ from, to: null, path: base }]
  if (typeof next === 'string') return [{ from, to: next, path: base }]
  if (!isRecord(next)) return []
  const out: RouteRef[] = []
  if ('branch' in next) {
    if (isRecord(next.routes)) {
      for (const [value, to] of Object.entries(next.routes)) {
        const t = target(to)
        if (t !== undefined)
          out.push({ from, to: t, label: value, path: [...base, 'routes', value] })
      }
    }
    const d = next.default === undefined ? null : target(next.default)
    if (d !== undefined) out.push({ from, to: d, label: 'default', path: [...base, 'default'] })
    return out
  }
  if ('when' in next) {
    if (Array.isArray(next.when)) {
      next.when.forEach((clause: unknown, i) => {
        if (!isRecord(clause)) return
        const t = target(clause.then)
        const label = typeof clause.if === 'string' ? clause.if : `when ${i}`
        if (t !== undefined) out.push({ from, to: t, label, path: [...base, 'when', i, 'then'] })
      })
    }
    const e = next.else === undefined ? null : target(next.else)
    if (e !== undefined) out.push({ from, to: e, label: 'else', path: [...base, 'else'] })
  }
  return out
}

/** Every route of every step, in document order. */
export function allRoutes(doc: unknown): RouteRef[] {
  return stepEntries(doc).flatMap(([name, step]) => routesOf(name, step.next))
}

function subgraphRefOf(
  step: Record<string, unknown>,
  path: Path,
  mustFinish?: SubgraphRef['mustFinish'],
): SubgraphRef[] {
  if (step.kind !== 'subgraph' || typeof step.graph !== 'string') return []
  const version = Number.isInteger(step.version) ? (step.version as number) : undefined
  return [{ graph: step.graph, version, path: [...path, 'graph'], mustFinish }]
}

/** Every reference to another graph: subgraph steps, parallel branches and agent tools. */
export function subgraphRefs(doc: unknown): SubgraphRef[] {
  const out: SubgraphRef[] = []
  for (const [name, step] of stepEntries(doc)) {
    out.push(...subgraphRefOf(step, ['steps', name]))
    if (step.kind === 'parallel' && isRecord(step.branches)) {
      for (const [branch, b] of Object.entries(step.branches)) {
        if (isRecord(b)) {
          out.push(...subgraphRefOf(b, ['steps', name, 'branches', branch], 'a parallel branch'))
        }
      }
    }
    if (step.kind === 'agent' && isRecord(step.tools)) {
      for (const [tool, t] of Object.entries(step.tools)) {
        if (isRecord(t) && isRecord(t.call)) {
          out.push(
            ...subgraphRefOf(t.call, ['steps', name, 'tools', tool, 'call'], 'an agent tool'),
          )
        }
      }
    }
  }
  return out
}

/**
 * The kinds of step that yield the run (a parallel branch must not). An agent step yields when
 * a tool call needs a person.
 */
export const SUSPENDING_KINDS: ReadonlySet<string> = new Set(['approval', 'input', 'wait', 'agent'])

/**
 * Whether a step can yield the run: one of SUSPENDING_KINDS, except an agent step whose rules
 * can send none of its tools' calls to a person (every tool is decided by a rule without `when`
 * that allows or denies it, or is `readOnly` with no rule asking about it).
 */
export function canSuspend(step: Record<string, unknown>): boolean {
  if (typeof step.kind !== 'string' || !SUSPENDING_KINDS.has(step.kind)) return false
  if (step.kind !== 'agent') return true
  const rules = Array.isArray(step.permissions) ? step.permissions.filter(isRecord) : []
  const tools = isRecord(step.tools) ? Object.entries(step.tools) : []
  return tools.some(([name, tool]) => {
    for (const rule of rules) {
      if (typeof rule.tool !== 'string') return true
      // Tool names and patterns hold only [A-Za-z0-9_-] and `*`.
      if (!new RegExp(`^${rule.tool.split('*').join('.*')}$`).test(name)) continue
      if (rule.permission === 'ask') return true
      if (rule.when === undefined) return false
    }
    return !(isRecord(tool) && tool.readOnly === true)
  })
}
