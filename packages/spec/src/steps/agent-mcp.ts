import type { Json, State, StepContext } from '@weave/kernel'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import {
  StreamableHTTPClientTransport,
  StreamableHTTPError,
} from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { canonicalDigest } from '../canonical-json.js'
import { McpToolChangedError, McpToolError, SpecError } from '../errors.js'
import type { EgressDecision, EgressPolicy } from '../http/egress.js'
import { allowedTarget } from './http-target.js'
import type { StepCompileContext } from './step-compiler.js'

/** How long connecting, listing and calling may take together, when the deps give no limit. */
export const DEFAULT_MCP_TIMEOUT_MS = 60_000
// Whatever a server sends, one response (an SSE stream included) is read up to this size.
const MAX_RESPONSE_BYTES = 4 * 1_048_576
// A server that keeps answering with a next page cannot keep a registration or a call waiting.
const MAX_LIST_PAGES = 50

type FetchLike = (url: string | URL, init?: RequestInit) => Promise<Response>

/** A tool as an MCP server lists it: the part a pin covers. */
export interface McpToolListing {
  name: string
  description?: string
  inputSchema: { [key: string]: Json }
}

/** An agent tool's call on an MCP server, with the pin its graph version was registered with. */
export interface PinnedMcpCall {
  kind: 'mcp'
  server: string
  tool: string
  digest: string
}

/**
 * The pin of an MCP tool: the hex SHA-256 of the canonical JSON of `{ name, description,
 * inputSchema }` as the server lists them (no `description` member when it lists none).
 */
export function mcpToolDigest(tool: McpToolListing): string {
  const pinned = { name: tool.name, description: tool.description, inputSchema: tool.inputSchema }
  return canonicalDigest(pinned)
}

const DRAFT_07 = new Set([
  'http://json-schema.org/draft-07/schema#',
  'http://json-schema.org/draft-07/schema',
  'https://json-schema.org/draft-07/schema#',
  'https://json-schema.org/draft-07/schema',
])

/**
 * The `parameters` of an MCP tool: its `inputSchema`, read as draft 2020-12. Servers built on the
 * MCP SDK declare draft-07, whose keywords they use mean the same in 2020-12; a draft-07-only
 * form (an `items` array) then fails validation at the tool's `parameters`, as does any other
 * dialect.
 */
export function mcpToolParameters(inputSchema: { [key: string]: Json }): { [key: string]: Json } {
  const dialect = inputSchema.$schema
  if (typeof dialect !== 'string' || !DRAFT_07.has(dialect)) return inputSchema
  const { $schema: _declared, ...rest } = inputSchema
  return rest
}

/** A fetch whose response bodies end in an error past `max` bytes. */
function boundedResponses(fetch: FetchLike, max: number): FetchLike {
  return async (url, init) => {
    const res = await fetch(url, init)
    if (res.body === null) return res
    let seen = 0
    const limit = new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        seen += chunk.byteLength
        if (seen > max) controller.error(new Error(`the response is larger than ${max} bytes`))
        else controller.enqueue(chunk)
      },
    })
    const { status, statusText, headers } = res
    return new Response(res.body.pipeThrough(limit), { status, statusText, headers })
  }
}

function isToolCall(body: RequestInit['body']): boolean {
  if (typeof body !== 'string') return false
  try {
    const message = JSON.parse(body) as { method?: unknown }
    return message.method === 'tools/call'
  } catch {
    return false
  }
}

/**
 * A fetch that gives the POST carrying `tools/call` the `Idempotency-Key`, and no other request
 * of the session: a server keying answers on it must not take a listing for the call.
 */
function keyedToolCalls(fetch: FetchLike, key: string): FetchLike {
  return (url, init) => {
    if (init?.method !== 'POST' || !isToolCall(init.body)) return fetch(url, init)
    const headers = new Headers(init.headers)
    headers.set('idempotency-key', key)
    return fetch(url, { ...init, headers })
  }
}

/** A fetch whose every request ends at `signal` too: nothing of an exchange outlives it. */
function until(fetch: FetchLike, signal: AbortSignal): FetchLike {
  return (url, init) => {
    const own = init?.signal ?? undefined
    return fetch(url, { ...init, signal: own ? AbortSignal.any([own, signal]) : signal })
  }
}

/** What a connected client's requests are sent with: the deadline of the whole exchange. */
interface Exchange {
  client: Client
  options: { signal: AbortSignal; timeout: number }
}

/**
 * Connects to `server` over Streamable HTTP through `fetch`, gives the connection to `use`, and
 * closes it (ending the server's session when it keeps one) however `use` ends.
 */
async function withMcpClient<T>(
  server: URL,
  fetch: FetchLike,
  options: Exchange['options'],
  use: (exchange: Exchange) => Promise<T>,
): Promise<T> {
  const transport = new StreamableHTTPClientTransport(server, {
    // Ending the session after the exchange (a DELETE) is bounded by the deadline as well.
    fetch: boundedResponses(until(fetch, options.signal), MAX_RESPONSE_BYTES),
    // One attempt: a lost stream fails the exchange rather than reconnecting behind its back.
    reconnectionOptions: {
      maxRetries: 0,
      initialReconnectionDelay: 1000,
      maxReconnectionDelay: 1000,
      reconnectionDelayGrowFactor: 1,
    },
  })
  const client = new Client({ name: 'weave', version: '0.1.0' })
  try {
    await client.connect(transport, options)
    return await use({ client, options })
  } finally {
    if (transport.sessionId !== undefined) await transport.terminateSession().catch(() => {})
    await client.close().catch(() => {})
  }
}

/** Every tool the server lists, following its pages. */
async function listTools({ client, options }: Exchange): Promise<McpToolListing[]> {
  const tools: McpToolListing[] = []
  // A server without the tools capability has none to list (and may not answer tools/list).
  if (client.getServerCapabilities()?.tools === undefined) return tools
  let cursor: string | undefined
  for (let page = 0; page < MAX_LIST_PAGES; page++) {
    const listed = await client.listTools(cursor === undefined ? {} : { cursor }, options)
    for (const t of listed.tools) {
      tools.push({
        name: t.name,
        ...(t.description === undefined ? {} : { description: t.description }),
        inputSchema: t.inputSchema as { [key: string]: Json },
      })
    }
    cursor = listed.nextCursor
    if (cursor === undefined) return tools
  }
  throw new Error(`the server's tool list goes on past ${MAX_LIST_PAGES} pages`)
}

function messageOf(err: unknown): string {
  if (err instanceof Error) {
    const cause = err.cause instanceof Error ? `: ${err.cause.message}` : ''
    return `${err.message}${cause}`
  }
  return String(err)
}

// The SDK puts an error answer's body in its message. A listing error goes back to whoever
// registers a graph, who must not read the bodies of hosts egress admits: only the status.
const MAX_LISTING_ERROR = 200
function listingFailure(err: unknown): string {
  if (err instanceof StreamableHTTPError) {
    return err.code === undefined
      ? 'the server gave no usable answer'
      : `the server answered HTTP ${err.code}`
  }
  const text = messageOf(err)
  return text.length > MAX_LISTING_ERROR ? `${text.slice(0, MAX_LISTING_ERROR)}…` : text
}

/** What listing an MCP server's tools needs: the egress policy and a deadline. */
export interface McpListingDeps {
  /** The http steps' egress policy: the server's URL must pass it, and is called pinned. */
  egress: EgressPolicy
  /** For connecting and listing together (default DEFAULT_MCP_TIMEOUT_MS). */
  timeoutMs?: number
  signal?: AbortSignal
}

/** Why an MCP server's tools could not be listed. */
export class McpListingError extends Error {
  override name = 'McpListingError'
}

/**
 * The tools `server` lists now, reached under the egress policy.
 * @throws McpListingError saying why: the egress policy refused the server, its host does not
 *   resolve, or it could not be reached or did not answer as an MCP server.
 */
export async function listMcpServerTools(
  server: string,
  deps: McpListingDeps,
): Promise<McpToolListing[]> {
  const url = new URL(server)
  let decision: EgressDecision
  try {
    decision = await deps.egress.decide(url)
  } catch (err) {
    throw new McpListingError(`cannot resolve ${url.hostname}: ${messageOf(err)}`, { cause: err })
  }
  if (!decision.isAllowed) {
    throw new McpListingError(`the egress policy refuses the MCP server: ${decision.reason}`)
  }
  const timeout = deps.timeoutMs ?? DEFAULT_MCP_TIMEOUT_MS
  const deadline = AbortSignal.timeout(timeout)
  const signal = deps.signal ? AbortSignal.any([deps.signal, deadline]) : deadline
  try {
    return await withMcpClient(url, decision.fetch, { signal, timeout }, listTools)
  } catch (err) {
    throw new McpListingError(`cannot list the MCP server's tools: ${listingFailure(err)}`, {
      cause: err,
    })
  }
}

/** The tool as `server` lists it now, checked against its pin; throws McpToolChangedError. */
async function checkPin(
  exchange: Exchange,
  call: PinnedMcpCall,
  step: string,
): Promise<McpToolListing> {
  const listed = (await listTools(exchange)).find((t) => t.name === call.tool)
  if (listed === undefined) {
    throw new McpToolChangedError(step, call.server, call.tool, 'is no longer listed')
  }
  const digest = mcpToolDigest(listed)
  if (digest !== call.digest) {
    throw new McpToolChangedError(
      step,
      call.server,
      call.tool,
      `changed since the graph version pinned it (digest ${digest}, pinned ${call.digest})`,
    )
  }
  return listed
}

/**
 * Whether an MCP tool's server still lists the tool as pinned, asked before a person is asked
 * to approve a call to it: the McpToolChangedError saying how it changed, or null when it is as
 * pinned. Nothing is called. A server that cannot be reached fails the step (McpToolError), as a
 * call would, so a resume checks again.
 */
export function mcpPinCheck(
  call: PinnedMcpCall,
  cx: StepCompileContext,
): (ctx: StepContext) => Promise<McpToolChangedError | null> {
  const injectedFetch = cx.deps.http?.fetch
  const timeout = cx.deps.mcp?.timeoutMs ?? DEFAULT_MCP_TIMEOUT_MS
  return async (ctx) => {
    const { target, decision } = await allowedTarget(call.server, ctx.step, cx.egress)
    const signal = AbortSignal.any([ctx.signal, AbortSignal.timeout(timeout)])
    const fetch = injectedFetch ?? decision.fetch
    try {
      await withMcpClient(target, fetch, { signal, timeout }, (e) => checkPin(e, call, ctx.step))
      return null
    } catch (err) {
      if (err instanceof McpToolChangedError) return err
      if (err instanceof SpecError) throw err
      throw new McpToolError(
        ctx.step,
        `MCP tool "${call.tool}" on ${call.server} could not be checked: ${messageOf(err)}`,
        { cause: err },
      )
    }
  }
}

/**
 * An MCP tool: the server's URL passes the egress policy as an http step's does, and every
 * request goes to the addresses it checked. Each call connects, lists the server's tools and
 * refuses (McpToolChangedError) when the tool is gone or its digest is not the pin: a server
 * cannot change a tool under a registered graph. Then `tools/call` with the checked arguments,
 * its request carrying `Idempotency-Key: <runId>:<step>:<callId>`. The model gets `{ isError,
 * content, structuredContent? }` as JSON text, an error result included; a call that gets no
 * result (network, timeout, protocol error) fails the step, so a resume sends it again.
 */
export function mcpRunner(
  call: PinnedMcpCall,
  cx: StepCompileContext,
): (invocation: { callId: string; args: State }, ctx: StepContext) => Promise<string> {
  const injectedFetch = cx.deps.http?.fetch
  const timeout = cx.deps.mcp?.timeoutMs ?? DEFAULT_MCP_TIMEOUT_MS
  return async ({ callId, args }, ctx) => {
    const { target, decision } = await allowedTarget(call.server, ctx.step, cx.egress)
    const key = `${ctx.runId}:${ctx.step}:${callId}`
    const fetch = keyedToolCalls(injectedFetch ?? decision.fetch, key)
    const signal = AbortSignal.any([ctx.signal, AbortSignal.timeout(timeout)])
    try {
      return await withMcpClient(target, fetch, { signal, timeout }, async (exchange) => {
        await checkPin(exchange, call, ctx.step)
        const result = await exchange.client.callTool(
          { name: call.tool, arguments: args },
          undefined,
          exchange.options,
        )
        return JSON.stringify({
          isError: result.isError === true,
          content: result.content,
          ...(result.structuredContent === undefined
            ? {}
            : { structuredContent: result.structuredContent }),
        })
      })
    } catch (err) {
      if (err instanceof SpecError) throw err
      throw new McpToolError(
        ctx.step,
        `MCP tool "${call.tool}" on ${call.server} failed: ${messageOf(err)}`,
        { cause: err },
      )
    }
  }
}
