import { Writable } from 'node:stream'
import { describe, expect, it } from 'vitest'
import { createLogger, isPrettyLog } from '../src/logger.js'

/** A destination whose lines the test reads. */
function captureLogStream(): { stream: Writable; lines: () => string[] } {
  const chunks: string[] = []
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      chunks.push(chunk.toString())
      done()
    },
  })
  return { stream, lines: () => chunks.join('').split('\n').filter(Boolean) }
}

describe('the log format', () => {
  it('is pretty on a terminal outside production, and JSON otherwise, when left on auto', () => {
    expect(isPrettyLog({ format: 'auto', isTerminal: true, isProduction: false })).toBe(true)
    expect(isPrettyLog({ format: 'auto', isTerminal: false, isProduction: false })).toBe(false)
    expect(isPrettyLog({ format: 'auto', isTerminal: true, isProduction: true })).toBe(false)
  })

  it('is what WEAVE_LOG_FORMAT forces, wherever the lines go', () => {
    for (const isTerminal of [true, false]) {
      for (const isProduction of [true, false]) {
        expect(isPrettyLog({ format: 'pretty', isTerminal, isProduction })).toBe(true)
        expect(isPrettyLog({ format: 'json', isTerminal, isProduction })).toBe(false)
      }
    }
  })

  it('writes one JSON object per line with credentials redacted', () => {
    const out = captureLogStream()
    const log = createLogger({ level: 'info', format: 'json', destination: out.stream })
    log.info({ authorization: 'Bearer abc.def.ghi', runId: 'r1' }, 'run started')
    const [line] = out.lines()
    expect(JSON.parse(line!)).toMatchObject({
      msg: 'run started',
      runId: 'r1',
      authorization: '[redacted]',
    })
  })

  it('writes pretty lines for a person, with the same credentials redacted', () => {
    const out = captureLogStream()
    const log = createLogger({ level: 'info', format: 'pretty', destination: out.stream })
    log.info(
      { authorization: 'Bearer abc.def.ghi', config: { llm: { apiKey: 'sk-live' } }, runId: 'r1' },
      'run started',
    )
    const text = out.lines().join('\n')
    expect(text).toContain('INFO')
    expect(text).toContain('run started')
    expect(text).toContain('runId: "r1"')
    expect(text).toContain('[redacted]')
    expect(text).not.toContain('abc.def.ghi')
    expect(text).not.toContain('sk-live')
    expect(() => JSON.parse(out.lines()[0]!)).toThrow()
  })
})
