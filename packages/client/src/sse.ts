/** One Server-Sent Events message. */
export interface SseMessage {
  id: string | undefined
  event: string
  data: string
  /** The reconnection delay the server asked for with `retry:`, when this message carried one. */
  retryMs: number | undefined
}

/**
 * The messages of a `text/event-stream` body, parsed as the HTML standard's event stream
 * interpretation says: `data:` lines joined by newlines, comments and unknown fields ignored, a
 * blank line ending a message, a message without data dispatched only for its `retry:`.
 */
export async function* sseMessages(body: ReadableStream<Uint8Array>): AsyncGenerator<SseMessage> {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader()
  let buffer = ''
  let id: string | undefined
  let event = ''
  let data: string[] = []
  let retryMs: number | undefined
  try {
    for (;;) {
      const { done, value } = await reader.read()
      if (done) return
      buffer += value
      let end: number
      while ((end = lineEnd(buffer)) >= 0) {
        const line = buffer.slice(0, end)
        buffer = buffer.slice(buffer[end] === '\r' && buffer[end + 1] === '\n' ? end + 2 : end + 1)
        if (line === '') {
          if (data.length > 0 || retryMs !== undefined) {
            yield { id, event: event || 'message', data: data.join('\n'), retryMs }
          }
          event = ''
          data = []
          retryMs = undefined
          continue
        }
        if (line.startsWith(':')) continue
        const colon = line.indexOf(':')
        const field = colon < 0 ? line : line.slice(0, colon)
        let value = colon < 0 ? '' : line.slice(colon + 1)
        if (value.startsWith(' ')) value = value.slice(1)
        if (field === 'data') data.push(value)
        else if (field === 'event') event = value
        else if (field === 'id' && !value.includes('\0')) id = value
        else if (field === 'retry' && /^\d+$/.test(value)) retryMs = Number(value)
      }
    }
  } finally {
    // An early return (the caller stopped reading) must close the connection.
    await reader.cancel().catch(() => undefined)
  }
}

/** The index of the first line break of `text` (a lone `\r` at its end may be half of `\r\n`). */
function lineEnd(text: string): number {
  for (let i = 0; i < text.length; i++) {
    const c = text[i]
    if (c === '\n') return i
    if (c === '\r') return i + 1 < text.length ? i : -1
  }
  return -1
}
