import type { GraphSpec } from './graph-spec.js'
import { routesOf } from './spec-walk.js'
import type { StepKind } from './step-schema.js'

/** A step of the topology; a parallel step lists its branches. */
export interface TopologyNode {
  id: string
  kind: StepKind
  branches?: Array<{ id: string; kind: StepKind }>
}

/**
 * A route. `to: null` is the end of the run (no pseudo-node, since "end" is a valid step name).
 * Labels: a branch's route value or "default"; a when clause's `if` expression or "else";
 * none for a plain `next`.
 */
export interface TopologyEdge {
  from: string
  to: string | null
  label?: string
}

/** Nodes and labelled edges of a graph, known from its spec without running anything. */
export interface Topology {
  nodes: TopologyNode[]
  edges: TopologyEdge[]
}

/** The topology of a spec: one node per step, one edge per route, in document order. */
export function specTopology(spec: GraphSpec): Topology {
  const nodes: TopologyNode[] = []
  const edges: TopologyEdge[] = []
  for (const [id, step] of Object.entries(spec.steps)) {
    nodes.push(
      step.kind === 'parallel'
        ? {
            id,
            kind: step.kind,
            branches: Object.entries(step.branches).map(([b, s]) => ({ id: b, kind: s.kind })),
          }
        : { id, kind: step.kind },
    )
    for (const r of routesOf(id, step.next)) {
      edges.push(
        r.label === undefined ? { from: id, to: r.to } : { from: id, to: r.to, label: r.label },
      )
    }
  }
  return { nodes, edges }
}
