import { canonicalJson } from './canonical-json.js'
import { toPointer, type SpecProblem } from './problem.js'
import { stepEntries } from './spec-walk.js'
import {
  listMcpServerTools,
  mcpToolDigest,
  mcpToolParameters,
  type McpListingDeps,
  type McpToolListing,
} from './steps/agent-mcp.js'

// Registering a graph calls out to every MCP server it names: a bound on how many, per request.
const MAX_MCP_SERVERS = 16

/** What pinning found: the document with each mcp tool it could pin filled in, and the rest. */
export interface McpPinResult {
  /** The document (a copy when it names an mcp tool), pinned tools filled in. */
  spec: unknown
  /** Why a tool could not be pinned, each at the tool (or its field) in the document. */
  problems: SpecProblem[]
}

interface McpToolRef {
  path: string[]
  server: string
  tool: string
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function isWebUrl(text: string): boolean {
  try {
    const { protocol } = new URL(text)
    return protocol === 'http:' || protocol === 'https:'
  } catch {
    return false
  }
}

/** Every agent tool of the document that calls a tool on an MCP server (a usable URL only). */
function mcpToolRefs(doc: unknown): McpToolRef[] {
  const refs: McpToolRef[] = []
  for (const [name, step] of stepEntries(doc)) {
    if (step.kind !== 'agent' || !isRecord(step.tools)) continue
    for (const [tool, spec] of Object.entries(step.tools)) {
      const call = isRecord(spec) ? spec.call : undefined
      if (!isRecord(call) || call.kind !== 'mcp') continue
      if (typeof call.server !== 'string' || typeof call.tool !== 'string') continue
      // The schema reports a server that is not a URL; there is nothing to list.
      if (!isWebUrl(call.server)) continue
      refs.push({ path: ['steps', name, 'tools', tool], server: call.server, tool: call.tool })
    }
  }
  return refs
}

/** The field of a tool of `doc` at `path`, which mcpToolRefs found to be an object. */
function toolAt(doc: unknown, path: string[]): Record<string, unknown> {
  let at = doc
  for (const key of path) at = (at as Record<string, unknown>)[key]
  return at as Record<string, unknown>
}

/**
 * Pins the mcp tools of a graph spec document, as registration does: lists the tools of each
 * MCP server the document names (under the egress policy, as an http step calls out) and fills
 * each mcp tool with the server's `description` (unless the author gave one), its `inputSchema`
 * as `parameters`, and `call.digest`, the SHA-256 of the canonical JSON of `{ name, description,
 * inputSchema }`. A tool is not pinned, and a problem says why, when its server cannot be listed
 * or lists no such tool, when the author's `parameters` are not the server's, or when the
 * author's `digest` is not the one the server's tool has now. The document is not validated:
 * validateSpec reports its other problems.
 */
export async function pinMcpTools(doc: unknown, deps: McpListingDeps): Promise<McpPinResult> {
  const refs = mcpToolRefs(doc)
  if (refs.length === 0) return { spec: doc, problems: [] }
  const servers = [...new Set(refs.map((r) => r.server))]
  if (servers.length > MAX_MCP_SERVERS) {
    const first = refs.find((r) => r.server === servers[MAX_MCP_SERVERS])!
    return {
      spec: doc,
      problems: [
        {
          path: toPointer([...first.path, 'call', 'server']),
          message: `a graph names at most ${MAX_MCP_SERVERS} MCP servers`,
        },
      ],
    }
  }
  const listings = new Map<string, Promise<McpToolListing[]>>(
    servers.map((server) => [server, listMcpServerTools(server, deps)]),
  )
  await Promise.allSettled(listings.values())
  const spec = structuredClone(doc)
  const problems: SpecProblem[] = []
  for (const ref of refs) {
    let listed: McpToolListing[]
    try {
      listed = await listings.get(ref.server)!
    } catch (err) {
      problems.push({
        path: toPointer(ref.path),
        message: `${ref.server}: ${(err as Error).message}`,
      })
      continue
    }
    const found = listed.find((t) => t.name === ref.tool)
    if (found === undefined) {
      problems.push({
        path: toPointer(ref.path),
        message: `the MCP server ${ref.server} lists no tool "${ref.tool}"`,
      })
      continue
    }
    const problem = pinTool(toolAt(spec, ref.path), found, ref)
    if (problem !== undefined) problems.push(problem)
  }
  return { spec, problems }
}

/** Fills one tool with its pin, or says why the author's fields contradict the server. */
function pinTool(
  tool: Record<string, unknown>,
  listed: McpToolListing,
  ref: McpToolRef,
): SpecProblem | undefined {
  const call = tool.call as Record<string, unknown>
  const digest = mcpToolDigest(listed)
  const parameters = mcpToolParameters(listed.inputSchema)
  if (tool.parameters !== undefined && !sameJson(tool.parameters, parameters)) {
    return {
      path: toPointer([...ref.path, 'parameters']),
      message: `not the inputSchema ${ref.server} lists for "${ref.tool}"; leave it out to take the server's`,
    }
  }
  if (call.digest !== undefined && call.digest !== digest) {
    return {
      path: toPointer([...ref.path, 'call', 'digest']),
      message: `the tool "${ref.tool}" of ${ref.server} has changed: its digest is now ${digest}`,
    }
  }
  tool.description ??= listed.description ?? ''
  tool.parameters = parameters
  call.digest = digest
  return undefined
}

function sameJson(a: unknown, b: unknown): boolean {
  try {
    return canonicalJson(a) === canonicalJson(b)
  } catch {
    return false
  }
}
