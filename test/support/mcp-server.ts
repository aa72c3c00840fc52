import { once } from 'node:events'
import { createServer, type IncomingMessage } from 'node:http'
import type { AddressInfo } from 'node:net'
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import type { ZodRawShape } from 'zod'

/** A tool the test server lists; change the server's `tools` to change what it lists. */
export interface McpTestTool {
  description?: string
  /** The arguments as a zod shape: the SDK lists it as the tool's `inputSchema`. */
  input: ZodRawShape
  /** What a call answers (default: the arguments as text). */
  answer?: (args: Record<string, unknown>) => CallToolResult | Promise<CallToolResult>
}

/** One JSON-RPC request the server received, with its `Idempotency-Key` header. */
export interface McpTestRequest {
  httpMethod: string
  /** The JSON-RPC method (`initialize`, `tools/list`, `tools/call`, ...), when a POST had one. */
  rpc: string | undefined
  idempotencyKey: string | undefined
}

/** An MCP server over Streamable HTTP on 127.0.0.1, stateless, whose tools a test can change. */
export interface McpTestServer {
  /** The endpoint, `http://127.0.0.1:<port>/mcp`. */
  url: string
  /** `127.0.0.1:<port>`, an allow-list entry. */
  host: string
  tools: Map<string, McpTestTool>
  requests: McpTestRequest[]
  /** The tool calls that ran, in order. */
  calls: Array<{ tool: string; args: Record<string, unknown>; idempotencyKey: string | undefined }>
  close(): Promise<void>
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = []
  for await (const chunk of req) chunks.push(chunk as Buffer)
  const text = Buffer.concat(chunks).toString('utf8')
  return text === '' ? undefined : (JSON.parse(text) as unknown)
}

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name]
  return Array.isArray(value) ? value[0] : value
}

/** Starts an {@link McpTestServer} listing `tools`, on a free port. */
export async function startMcpServer(tools: Record<string, McpTestTool>): Promise<McpTestServer> {
  const listed = new Map(Object.entries(tools))
  const requests: McpTestRequest[] = []
  const calls: McpTestServer['calls'] = []
  const http = createServer((req, res) => {
    void (async () => {
      const body = req.method === 'POST' ? await readJson(req) : undefined
      const rpc = (body as { method?: unknown } | undefined)?.method
      const idempotencyKey = header(req, 'idempotency-key')
      requests.push({
        httpMethod: req.method ?? '',
        rpc: typeof rpc === 'string' ? rpc : undefined,
        idempotencyKey,
      })
      // Stateless: a server per request, built from the tools as they are now.
      const server = new McpServer({ name: 'test-tools', version: '1.0.0' })
      for (const [name, tool] of listed) {
        server.registerTool(
          name,
          {
            ...(tool.description === undefined ? {} : { description: tool.description }),
            inputSchema: tool.input,
          },
          (args: Record<string, unknown>) => {
            calls.push({ tool: name, args, idempotencyKey })
            return (
              tool.answer?.(args) ?? { content: [{ type: 'text', text: JSON.stringify(args) }] }
            )
          },
        )
      }
      const transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: undefined,
        enableJsonResponse: true,
      })
      res.on('close', () => {
        void transport.close()
        void server.close()
      })
      await server.connect(transport)
      await transport.handleRequest(req, res, body)
    })().catch((err: unknown) => {
      if (!res.headersSent) res.writeHead(500).end(String(err))
    })
  })
  http.listen(0, '127.0.0.1')
  await once(http, 'listening')
  const { port } = http.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    host: `127.0.0.1:${port}`,
    tools: listed,
    requests,
    calls,
    close: () =>
      new Promise<void>((resolve, reject) => {
        http.closeAllConnections()
        http.close((err) => (err ? reject(err) : resolve()))
      }),
  }
}
