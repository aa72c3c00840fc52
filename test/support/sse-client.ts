/** One Server-Sent Events message as a client sees it. */
export interface SseMessage {
  id: string | undefined
  event: string
  data: string
  /** When it arrived (Date.now()). */
  at: number
}

/** An open event stream read message by message. */
export interface SseStream {
  status: number
  headers: Headers
  /** Comment lines seen so far (`: ping` → `ping`). */
  comments: string[]
  /** The last `retry:` value seen. */
  retry: number | undefined
  /**
   * The next message, or null once the server ended the stream.
   * @throws Error when none arrives within `timeoutMs`
   */
  next(timeoutMs?: number): Promise<SseMessage | null>
  /** Every remaining message until the server ends the stream. */
  rest(timeoutMs?: number): Promise<SseMessage[]>
  /** Resolves once a comment satisfying `predicate` has arrived. */
  comment(predicate: (text: string) => boolean, timeoutMs?: number): Promise<void>
  /** Drops the connection (as a client going away does). */
  close(): void
}

/**
 * Opens `url` with `fetch` and parses its body as `text/event-stream` (WHATWG HTML §9.2): blank
 * lines end messages, `:` lines are comments, `data` lines are joined with `\n`.
 */
export async function openSse(
  url: string,
  headers: Record<string, string> = {},
): Promise<SseStream> {
  const controller = new AbortController()
  const response = await fetch(url, {
    headers: { accept: 'text/event-stream', ...headers },
    signal: controller.signal,
  })
  const messages: SseMessage[] = []
  const comments: string[] = []
  let isEnded = false
  let failure: unknown
  let notify: () => void = () => undefined
  const changed = () => notify()
  const state = { retry: undefined as number | undefined }

  const consume = async () => {
    if (!response.body) return
    const decoder = new TextDecoder()
    let buffer = ''
    let fields: { id?: string; event?: string; data: string[] } = { data: [] }
    for await (const chunk of response.body) {
      buffer += decoder.decode(chunk as Uint8Array, { stream: true })
      let newline: number
      while ((newline = buffer.search(/\r\n|\r|\n/)) >= 0) {
        const line = buffer.slice(0, newline)
        buffer = buffer.slice(newline + (buffer.startsWith('\r\n', newline) ? 2 : 1))
        if (line === '') {
          if (fields.data.length > 0) {
            messages.push({
              id: fields.id,
              event: fields.event ?? 'message',
              data: fields.data.join('\n'),
              at: Date.now(),
            })
          }
          fields = { data: [] }
        } else if (line.startsWith(':')) {
          comments.push(line.slice(1).trimStart())
        } else {
          const colon = line.indexOf(':')
          const name = colon < 0 ? line : line.slice(0, colon)
          const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '')
          if (name === 'id') fields.id = value
          else if (name === 'event') fields.event = value
          else if (name === 'data') fields.data.push(value)
          else if (name === 'retry' && /^\d+$/.test(value)) state.retry = Number(value)
        }
        changed()
      }
    }
  }
  consume()
    .catch((err: unknown) => {
      if (!controller.signal.aborted) failure = err
    })
    .finally(() => {
      isEnded = true
      changed()
    })

  const waitFor = async <T>(take: () => T | undefined, timeoutMs: number, what: string) => {
    const deadline = Date.now() + timeoutMs
    for (;;) {
      const value = take()
      if (value !== undefined) return value
      if (failure) throw failure
      const left = deadline - Date.now()
      if (left <= 0) throw new Error(`no ${what} within ${timeoutMs} ms`)
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left)
        notify = () => {
          clearTimeout(timer)
          resolve()
        }
      })
    }
  }

  let read = 0
  const stream: SseStream = {
    status: response.status,
    headers: response.headers,
    comments,
    get retry() {
      return state.retry
    },
    next: (timeoutMs = 10_000) =>
      waitFor<SseMessage | null>(
        () => (read < messages.length ? messages[read++]! : isEnded ? null : undefined),
        timeoutMs,
        'event',
      ),
    async rest(timeoutMs = 10_000) {
      const all: SseMessage[] = []
      for (let m = await stream.next(timeoutMs); m; m = await stream.next(timeoutMs)) all.push(m)
      return all
    },
    comment: (predicate, timeoutMs = 10_000) =>
      waitFor(() => (comments.some(predicate) ? true : undefined), timeoutMs, 'comment').then(
        () => undefined,
      ),
    close: () => controller.abort(),
  }
  return stream
}
