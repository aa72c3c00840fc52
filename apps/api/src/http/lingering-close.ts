import type { IncomingMessage } from 'node:http'
import type { Socket } from 'node:net'
import fp from 'fastify-plugin'

/** How much of a request body a lingering close reads and discards at most, by default. */
export const LINGER_MAX_BYTES = 64 * 1024 * 1024
/** How long a lingering close waits for the client to stop sending, by default. */
export const LINGER_MAX_MS = 10_000

/** Options of {@link lingeringClosePlugin}. */
export interface LingerOptions {
  /** The most bytes read and discarded after the answer before the connection is cut. */
  maxBytes?: number
  /** The longest time the connection stays open after the answer. */
  maxMs?: number
}

const LINGERING = Symbol('weave.lingering')
// How often the discarded bytes are counted: loopback delivers about 100 MiB in this time.
const METER_MS = 50

/**
 * Answers a request whose body was not read to its end (a body over the limit, a request refused
 * before its body was parsed) without losing the answer. Closing a socket with unread data makes
 * TCP send a reset, and a client still sending its body then loses the response it was sent.
 * So such an answer says `Connection: close`, the server ends its side once the answer is
 * written, and it reads and discards what the client still sends, up to `maxBytes` and `maxMs`,
 * before closing: what nginx calls a lingering close (lingering-close.test.ts).
 */
export const lingeringClosePlugin = fp<LingerOptions>(
  async (app, options) => {
    const limits = {
      maxBytes: options.maxBytes ?? LINGER_MAX_BYTES,
      maxMs: options.maxMs ?? LINGER_MAX_MS,
    }
    app.addHook('onSend', async (request, reply) => {
      if (request.raw.complete) return
      reply.header('connection', 'close')
      lingerAfterAnswer(request.raw, limits)
    })
  },
  { name: 'weave-lingering-close' },
)

/**
 * Replaces the socket's close after the answer (Node's `destroySoon`, called once a
 * `Connection: close` response is written) with a lingering one. Node's server already discards
 * the rest of an unread body once the response is finished; this keeps the socket open while it
 * does, within the limits.
 */
function lingerAfterAnswer(
  request: IncomingMessage,
  limits: { maxBytes: number; maxMs: number },
): void {
  const socket = request.socket as Socket & { [LINGERING]?: true }
  if (socket[LINGERING]) return
  socket[LINGERING] = true
  socket.destroySoon = () => {
    // The answer is written: a FIN after it lets the client read it whole.
    socket.end()
    // Node's parser reads the discarded body straight from the socket's handle, without events,
    // so the bound is checked on the socket's byte count.
    const readBefore = socket.bytesRead
    const cut = () => socket.destroy()
    const timer = setTimeout(cut, limits.maxMs)
    const meter = setInterval(() => {
      if (socket.bytesRead - readBefore > limits.maxBytes) cut()
    }, METER_MS)
    timer.unref()
    meter.unref()
    // The client has sent everything and closed its side: nothing unread remains.
    socket.once('end', cut)
    socket.once('close', () => {
      clearTimeout(timer)
      clearInterval(meter)
    })
  }
}
