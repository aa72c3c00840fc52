import type { FastifyRequest } from 'fastify'
import {
  pino,
  type DestinationStream,
  type LevelWithSilent,
  type Logger,
  type LoggerOptions as PinoOptions,
} from 'pino'

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
]

// Path segments after these prefixes are bearer credentials (single-use approval tokens).
const SECRET_PATH_PREFIXES = ['/v1/approval-hooks/']

/** The pino logger of a Weave process, with credentials redacted and request URLs scrubbed. */
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

/** A URL safe to log: a credential carried in the path is replaced. */
export function scrubUrl(url: string): string {
  const prefix = SECRET_PATH_PREFIXES.find((candidate) => url.startsWith(candidate))
  return prefix === undefined ? url : `${prefix}[redacted]`
}
