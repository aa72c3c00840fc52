/** The media type of Server-Sent Events. */
export const EVENT_STREAM_TYPE = 'text/event-stream'

/**
 * One SSE message: `id`, `event` and one `data` line. `data` must not contain a line break;
 * JSON.stringify output never does.
 */
export function sseMessage(id: number, event: string, data: string): string {
  return `id: ${id}\nevent: ${event}\ndata: ${data}\n\n`
}

/** An SSE comment: ignored by clients, it keeps proxies and load balancers from timing out. */
export function sseComment(text: string): string {
  return `: ${text}\n\n`
}

/** Tells the client how long to wait before reconnecting after the stream drops. */
export function sseRetry(ms: number): string {
  return `retry: ${Math.max(0, Math.round(ms))}\n\n`
}

/**
 * Whether a request asks for an event stream rather than JSON: yes unless its `Accept` names
 * `application/json` and not `text/event-stream` (a browser's EventSource and `curl` get SSE).
 */
export function wantsEventStream(accept: string | undefined): boolean {
  if (accept === undefined) return true
  const types = accept
    .split(',')
    .map((part) => part.split(';')[0]!.trim().toLowerCase())
    .filter((type) => type !== '')
  if (types.includes(EVENT_STREAM_TYPE)) return true
  return !types.includes('application/json')
}
