import { Writable } from 'node:stream'
import type { Logger } from 'pino'
import { loadConfig, type Config } from '../src/config.js'
import { createLogger } from '../src/logger.js'

export const SECRET = 'test-secret-that-is-at-least-32-bytes-long'

/** A config with an HS256 secret and whatever else the test overrides ('' unsets). */
export function testConfig(env: Record<string, string> = {}): Config {
  return loadConfig({ WEAVE_JWT_SECRET: SECRET, LOG_LEVEL: 'debug', ...env })
}

/** Weave's logger at trace level, writing lines the test can read. */
export function captureLog(): { log: Logger; stream: Writable; lines: () => string[] } {
  const chunks: string[] = []
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      chunks.push(chunk.toString())
      done()
    },
  })
  return {
    log: createLogger({ level: 'trace', destination: stream }),
    stream,
    lines: () => chunks.join('').split('\n').filter(Boolean),
  }
}
