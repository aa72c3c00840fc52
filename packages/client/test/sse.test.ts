import { describe, expect, it } from 'vitest'
import { retryAfterSeconds, sseMessages } from '@weave/client'

/** A body that delivers `chunks` one read at a time, as a network splits them. */
function body(...chunks: string[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder()
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(encoder.encode(chunk))
      controller.close()
    },
  })
}

async function read(stream: ReadableStream<Uint8Array>) {
  const messages = []
  for await (const message of sseMessages(stream)) messages.push(message)
  return messages
}

describe('sseMessages', () => {
  it('parses messages split anywhere, joining data lines and skipping comments', async () => {
    const messages = await read(
      body(
        'retry: 20',
        '00\n\nid: 1\nevent: run.qu',
        'eued\ndata: {"a":',
        '1}\n\n: ping\n\n',
        'id: 2\r\ndata: x\r\ndata: y\r\n\r\n',
      ),
    )
    expect(messages).toEqual([
      { id: undefined, event: 'message', data: '', retryMs: 2000 },
      { id: '1', event: 'run.queued', data: '{"a":1}', retryMs: undefined },
      { id: '2', event: 'message', data: 'x\ny', retryMs: undefined },
    ])
  })

  it('drops a message the stream ended in the middle of', async () => {
    expect(await read(body('id: 1\ndata: whole\n\nid: 2\ndata: half'))).toEqual([
      { id: '1', event: 'message', data: 'whole', retryMs: undefined },
    ])
  })
})

describe('retryAfterSeconds', () => {
  it('reads delay-seconds and HTTP dates, and nothing else', () => {
    const now = Date.parse('2025-01-31T09:30:00Z')
    expect(retryAfterSeconds('7', now)).toBe(7)
    expect(retryAfterSeconds('Fri, 31 Jan 2025 09:30:12 GMT', now)).toBe(12)
    expect(retryAfterSeconds('Fri, 31 Jan 2025 09:29:00 GMT', now)).toBe(0)
    expect(retryAfterSeconds('soon', now)).toBeUndefined()
    expect(retryAfterSeconds(null, now)).toBeUndefined()
  })
})
