import { describe, expect, it } from 'vitest'
import { sseComment, sseMessage, sseRetry, wantsEventStream } from '../src/http/sse.js'

describe('server-sent event framing', () => {
  it('frames a message with id, event and one data line, ended by a blank line', () => {
    expect(sseMessage(3, 'run.started', '{"id":3}')).toBe(
      'id: 3\nevent: run.started\ndata: {"id":3}\n\n',
    )
    expect(sseComment('ping')).toBe(': ping\n\n')
    expect(sseRetry(2000.4)).toBe('retry: 2000\n\n')
  })

  it('streams unless the client asks for JSON and not for an event stream', () => {
    expect(wantsEventStream(undefined)).toBe(true)
    expect(wantsEventStream('*/*')).toBe(true)
    expect(wantsEventStream('text/event-stream')).toBe(true)
    expect(wantsEventStream('application/json, text/event-stream;q=0.5')).toBe(true)
    expect(wantsEventStream('application/json')).toBe(false)
    expect(wantsEventStream('Application/JSON; charset=utf-8')).toBe(false)
  })
})
