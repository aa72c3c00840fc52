import type { GraphSpec } from './graph-spec.js'
import { toPointer, type SpecProblem } from './problem.js'
import { canSuspend, stepEntries, subgraphRefs, type SubgraphRef } from './spec-walk.js'

/** Looks up a registered graph's spec; `version` absent means the latest. */
export type ResolveGraph = (
  name: string,
  version?: number,
) => GraphSpec | undefined | Promise<GraphSpec | undefined>

/** What validation needs to know about the registry. */
export interface ValidateContext {
  resolveGraph?: ResolveGraph
  /** The name the spec is being registered under: a subgraph reaching it again is a cycle. */
  selfName?: string
}

// Registered graphs were validated when registered, so deep chains are unusual; the cap only
// bounds the walk if the registry holds something unexpected.
const MAX_DEPTH = 32

interface Finding {
  cycle?: string[]
  suspends?: string
}

function label(graph: string, version: number | undefined): string {
  return version === undefined ? `"${graph}"` : `"${graph}" version ${version}`
}

async function explore(
  spec: GraphSpec,
  chain: string[],
  ctx: Required<ValidateContext>,
  seen: Set<string>,
): Promise<Finding> {
  const finding: Finding = {}
  for (const [name, step] of stepEntries(spec)) {
    if (finding.suspends === undefined && canSuspend(step)) {
      finding.suspends = `graph ${chain[chain.length - 1]} has the ${String(step.kind)} step "${name}"`
    }
  }
  if (chain.length > MAX_DEPTH) return finding
  for (const ref of subgraphRefs(spec)) {
    if (ref.graph === ctx.selfName && ref.version === undefined) {
      finding.cycle ??= [...chain, `"${ref.graph}"`]
      continue
    }
    const key = `${ref.graph}@${ref.version ?? 'latest'}`
    if (seen.has(key)) continue
    seen.add(key)
    const child = await ctx.resolveGraph(ref.graph, ref.version)
    if (!child) continue
    const inner = await explore(child, [...chain, label(ref.graph, ref.version)], ctx, seen)
    finding.cycle ??= inner.cycle
    finding.suspends ??= inner.suspends
  }
  return finding
}

async function refProblems(ref: SubgraphRef, ctx: ValidateContext): Promise<SpecProblem[]> {
  const path = toPointer(ref.path)
  const self = ctx.selfName
  if (self !== undefined && ref.graph === self && ref.version === undefined) {
    return [{ path, message: `subgraph cycle: graph "${self}" runs itself` }]
  }
  if (!ctx.resolveGraph) return []
  const child = await ctx.resolveGraph(ref.graph, ref.version)
  if (!child) {
    const message =
      ref.version === undefined
        ? `unknown graph "${ref.graph}"`
        : `graph "${ref.graph}" has no version ${ref.version}`
    return [{ path, message }]
  }
  const start = [`"${self ?? '(this graph)'}"`, label(ref.graph, ref.version)]
  const full = { resolveGraph: ctx.resolveGraph, selfName: self ?? '' }
  const finding = await explore(child, start, full, new Set())
  const problems: SpecProblem[] = []
  if (self !== undefined && finding.cycle) {
    problems.push({ path, message: `subgraph cycle: ${finding.cycle.join(' → ')}` })
  }
  if (ref.mustFinish !== undefined && finding.suspends) {
    problems.push({
      path,
      message: `${ref.mustFinish} cannot suspend, but ${finding.suspends}`,
    })
  }
  return problems
}

/**
 * Subgraph references: each must name a registered graph (and version) and must not lead back
 * to the graph being registered; one inside a parallel branch or behind an agent tool must not
 * suspend.
 */
export async function subgraphProblems(doc: unknown, ctx: ValidateContext): Promise<SpecProblem[]> {
  const lists = await Promise.all(subgraphRefs(doc).map((ref) => refProblems(ref, ctx)))
  return lists.flat()
}
