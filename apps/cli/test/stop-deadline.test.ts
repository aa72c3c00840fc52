import { pino } from 'pino'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { EXIT } from '../src/cli-io.js'
import { stopWithin } from '../src/stop-deadline.js'

function memoryLog() {
  const lines: string[] = []
  const log = pino({ level: 'info' }, { write: (line: string) => lines.push(line) })
  return { log, lines }
}

describe('stopWithin', () => {
  beforeEach(() => {
    vi.useFakeTimers()
  })
  afterEach(() => {
    vi.useRealTimers()
  })

  it('exits with the forced-stop status, saying so once, when the stop outlasts its bound', async () => {
    const { log, lines } = memoryLog()
    const exit = vi.fn()
    void stopWithin({ timeoutMs: 3_000, log, stop: () => new Promise(() => undefined), exit })
    await vi.advanceTimersByTimeAsync(2_999)
    expect(exit).not.toHaveBeenCalled()
    await vi.advanceTimersByTimeAsync(1)
    expect(exit).toHaveBeenCalledExactlyOnceWith(EXIT.forcedStop)
    expect(lines.map((line) => JSON.parse(line).msg)).toEqual([
      'stop timed out; exiting without finishing it',
    ])
  })

  it('resolves without forcing anything when the stop finishes in time', async () => {
    const { log, lines } = memoryLog()
    const exit = vi.fn()
    await stopWithin({ timeoutMs: 3_000, log, stop: async () => undefined, exit })
    expect(exit).not.toHaveBeenCalled()
    expect(lines).toEqual([])
  })

  it('still ends a process whose stop failed', async () => {
    const { log } = memoryLog()
    const exit = vi.fn()
    const stopping = stopWithin({
      timeoutMs: 1_000,
      log,
      stop: async () => {
        throw new Error("Stream isn't writeable")
      },
      exit,
    })
    await expect(stopping).rejects.toThrow(/writeable/)
    await vi.advanceTimersByTimeAsync(1_000)
    expect(exit).toHaveBeenCalledExactlyOnceWith(EXIT.forcedStop)
  })
})
