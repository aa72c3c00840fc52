import { once } from 'node:events'
import { createServer, connect, type Socket } from 'node:net'

/** A request head seen going through the proxy. */
export interface SeenRequest {
  method: string
  path: string
  /** Header names in lower case. */
  headers: Record<string, string>
}

/**
 * A TCP proxy in front of an HTTP server that can cut every connection through it at once, as a
 * load balancer or a network does: the client sees its open responses end mid-stream.
 */
export interface DroppingProxy {
  /** `http://127.0.0.1:<port>` */
  url: string
  /** Every request head the clients sent, in order. */
  requests: SeenRequest[]
  /** Connections open now. */
  openConnections(): number
  /** Destroys every open connection, both sides. */
  dropAll(): void
  close(): Promise<void>
}

/** Starts a {@link DroppingProxy} to `target` (`http://host:port`) on a free local port. */
export async function startDroppingProxy(target: string): Promise<DroppingProxy> {
  const upstream = new URL(target)
  const sockets = new Set<Socket>()
  const requests: SeenRequest[] = []
  const server = createServer((client) => {
    const server = connect(Number(upstream.port), upstream.hostname)
    for (const socket of [client, server]) {
      sockets.add(socket)
      socket.on('close', () => sockets.delete(socket))
      socket.on('error', () => undefined)
    }
    client.on('data', (chunk: Buffer) => requests.push(...requestHeads(chunk.toString('latin1'))))
    client.pipe(server)
    server.pipe(client)
    client.on('close', () => server.destroy())
    server.on('close', () => client.destroy())
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const { port } = server.address() as { port: number }
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    openConnections: () => sockets.size / 2,
    dropAll() {
      for (const socket of sockets) socket.destroy()
    },
    async close() {
      for (const socket of sockets) socket.destroy()
      server.close()
      await once(server, 'close')
    },
  }
}

/** The request heads that start in `text` (bodies in these tests are small JSON, never heads). */
function requestHeads(text: string): SeenRequest[] {
  const heads: SeenRequest[] = []
  for (const match of text.matchAll(/(GET|POST|DELETE) (\S+) HTTP\/1\.1\r\n([\s\S]*?)\r\n\r\n/g)) {
    const headers: Record<string, string> = {}
    for (const line of match[3]!.split('\r\n')) {
      const colon = line.indexOf(':')
      if (colon > 0)
        headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim()
    }
    heads.push({ method: match[1]!, path: match[2]!, headers })
  }
  return heads
}
