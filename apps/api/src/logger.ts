import type { FastifyRequest } from 'fastify'
import {
  pino,
  type DestinationStream,
  type LevelWithSilent,
  type Logger,
  type LoggerOptions as PinoOptions,
} from 'pino'
import { scrubUrl } from './http/scrub-url.js'

/** Options of {@link createLogger}. */
export interface LoggerOptions {
  level: LevelWithSilent
  /** Where lines go; stdout by default. */
  destination?: DestinationStream
}

// Credentials can sit in headers or in any object a caller logs; pino replaces them in place.
const REDACT_PATHS = [
  'authorization',
  'cookie',
  'token',
  'secret',
  'password',
  'apiKey',
  '*.authorization',
  '*.cookie',
  '*.token',
  '*.secret',
  '*.password',
  '*.apiKey',
  '*.accessToken',
  '*.refreshToken',
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-api-key"]',
  'res.headers["set-cookie"]',
  'headers.authorization',
  'headers.cookie',
  'config.jwt.key.secret',
  'config.llm.apiKey',
  'config.metrics.token',
  'config.databaseUrl',
  'config.migrateDatabaseUrl',
]

/**
 * The pino logger of a Weave process, with credentials redacted and request URLs scrubbed: the
 * `req` serializer is what Fastify's "incoming request" line logs, so a token sent in the query
 * string or an approval link's path never reaches the log (logger.test.ts).
 */
export function createLogger(options: LoggerOptions): Logger {
  const loggerOptions: PinoOptions = {
    level: options.level,
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    serializers: {
      req: (request: FastifyRequest) => ({
        method: request.method,
        url: scrubUrl(request.url),
        remoteAddress: request.ip,
      }),
      err: pino.stdSerializers.err,
    },
  }
  return options.destination ? pino(loggerOptions, options.destination) : pino(loggerOptions)
}
