import type { TopologyView } from '../schemas/graphs.js'

/**
 * A Mermaid flowchart of a topology: a `start` node into the entry, one node per step labelled
 * with its name and kind, labelled edges, and `done` for the end of the run. Step ids become
 * `s0`, `s1`, … so no step name can collide with Mermaid syntax or keywords (`end`).
 */
export function topologyToMermaid(topology: TopologyView, entry: string): string {
  const ids = new Map(topology.nodes.map((node, index) => [node.id, `s${index}`]))
  const idOf = (step: string | null): string => (step === null ? 'done' : (ids.get(step) ?? 'done'))
  const lines = ['flowchart TD', '  start(("start"))']
  for (const node of topology.nodes) {
    const branches = node.branches?.map((b) => `${b.id}: ${b.kind}`).join(', ')
    const kind = branches ? `${node.kind}: ${branches}` : node.kind
    lines.push(`  ${idOf(node.id)}["${escapeLabel(`${node.id} (${kind})`)}"]`)
  }
  if (topology.edges.some((edge) => edge.to === null)) lines.push('  done(("end"))')
  lines.push(`  start --> ${idOf(entry)}`)
  for (const edge of topology.edges) {
    const label = edge.label === undefined ? '' : `|"${escapeLabel(edge.label)}"|`
    lines.push(`  ${idOf(edge.from)} -->${label} ${idOf(edge.to)}`)
  }
  return `${lines.join('\n')}\n`
}

// Mermaid's entity codes: labels are quoted, so only these characters could end or break one.
function escapeLabel(text: string): string {
  return text
    .replaceAll('#', '#35;')
    .replaceAll('"', '#quot;')
    .replaceAll('<', '#lt;')
    .replaceAll('>', '#gt;')
    .replaceAll(/[\r\n]+/g, ' ')
}
