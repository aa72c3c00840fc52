import { once } from 'node:events'
import { createServer, type Socket } from 'node:net'
import { describe, expect, it } from 'vitest'
import { createDb } from '../src/client.js'
import { isDatabaseUnavailable } from '../src/pg-errors.js'

describe('createDb', () => {
  it('fails a query as unavailable when the server accepts the connection but never answers', async () => {
    // A Postgres behind a dropped network: the TCP connection opens, the handshake never comes.
    const sockets: Socket[] = []
    const silent = createServer((socket) => sockets.push(socket))
    silent.listen(0, '127.0.0.1')
    await once(silent, 'listening')
    const address = silent.address()
    if (address === null || typeof address === 'string') throw new Error('no port')
    const database = createDb({
      connectionString: `postgres://weave@127.0.0.1:${address.port}/weave`,
      connectTimeoutMs: 300,
    })
    try {
      const error = await database.pool.query('select 1').then(
        () => undefined,
        (err: unknown) => err,
      )
      expect(error).toBeInstanceOf(Error)
      expect(isDatabaseUnavailable(error)).toBe(true)
    } finally {
      await database.close()
      for (const socket of sockets) socket.destroy()
      silent.close()
    }
  })
})
