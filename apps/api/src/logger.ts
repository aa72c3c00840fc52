import type { FastifyRequest } from 'fastify'
import { build as prettyStream } from 'pino-pretty'
import {
  pino,
  type DestinationStream,
  type LevelWithSilent,
  type Logger,
  type LoggerOptions as PinoOptions,
} from 'pino'
import { scrubUrl } from './http/scrub-url.js'

/** How lines are written: `auto` is pretty on a terminal outside production, JSON otherwise. */
export type LogFormat = 'auto' | 'pretty' | 'json'

/** Options of {@link createLogger}. */
export interface LoggerOptions {
  level: LevelWithSilent
  /** Where lines go; stdout by default. */
  destination?: DestinationStream
  /** `WEAVE_LOG_FORMAT`; `json` when absent. */
  format?: LogFormat
  /** NODE_ENV=production: `auto` then writes JSON even on a terminal. */
  isProduction?: boolean
}

/**
 * Whether lines are pretty-printed: as forced by `format`, else only for a person watching a
 * terminal outside production. A pipe, a file or a log shipper gets one JSON object per line.
 */
export function isPrettyLog(o: {
  format: LogFormat
  isTerminal: boolean
  isProduction: boolean
}): boolean {
  if (o.format !== 'auto') return o.format === 'pretty'
  return o.isTerminal && !o.isProduction
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
 * string or an approval link's path never reaches the log (logger.test.ts). Pretty lines
 * (isPrettyLog) are formatted from the redacted record, so they hide the same values.
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
  const isTerminal = options.destination === undefined && process.stdout.isTTY === true
  const pretty = isPrettyLog({
    format: options.format ?? 'json',
    isTerminal,
    isProduction: options.isProduction ?? false,
  })
  if (pretty) {
    // In-process and synchronous, like the JSON destination: no line is lost at exit.
    const stream = prettyStream({
      colorize: isTerminal,
      sync: true,
      ...(options.destination ? { destination: options.destination } : {}),
    })
    return pino(loggerOptions, stream)
  }
  return options.destination ? pino(loggerOptions, options.destination) : pino(loggerOptions)
}
