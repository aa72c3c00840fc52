import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

/** A request the local server received. */
export interface Received {
  method: string
  url: string
  headers: IncomingHttpHeaders
  body: string
}

/** A node:http server on 127.0.0.1 that records requests and answers with `handle`. */
export interface LocalServer {
  origin: string
  port: number
  received: Received[]
  close(): Promise<void>
}

/** Starts a local server on a free port of 127.0.0.1. */
export async function startLocalServer(
  handle: (req: Received, res: ServerResponse, index: number) => void,
): Promise<LocalServer> {
  const received: Received[] = []
  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const r = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      }
      received.push(r)
      handle(r, res, received.length - 1)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    origin: `http://127.0.0.1:${port}`,
    port,
    received,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections()
        server.close((err) => (err ? reject(err) : resolve()))
      }),
  }
}

/** Answers with a JSON body. */
export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' })
  res.end(JSON.stringify(body))
}
