import { parseAuditSigningKey, parseSecretsKey } from '@weave/db'
import { z } from 'zod'

/**
 * The value kinds of Weave's environment variables. Every process parses a variable of a kind
 * with the same schema, so one value means the same to the API and to the workers.
 */

/** A comma-separated list; blanks around items and empty items are dropped. */
export const List = z
  .string()
  .transform((value) => value.split(',').map((item) => item.trim()))
  .transform((items) => items.filter((item) => item !== ''))

/** A switch: `on`/`true` or `off`/`false`. */
export const OnOff = z
  .enum(['on', 'off', 'true', 'false'], { error: 'must be on or off' })
  .transform((value) => value === 'on' || value === 'true')

export const PostgresUrl = z.url({
  protocol: /^postgres(ql)?$/,
  error: 'must be a postgres:// URL',
})

export const RedisUrl = z.url({
  protocol: /^rediss?$/,
  error: 'must be a redis:// or rediss:// URL',
})

export const HttpUrl = z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' })

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const
export const LogLevel = z.enum(LOG_LEVELS)

/** How log lines are written: `auto` is pretty on a terminal outside production, JSON otherwise. */
export const LogFormat = z.enum(['auto', 'pretty', 'json'])

export const Port = z.coerce.number().int().min(0).max(65_535)

/** A 32-byte key, hex or base64, as a Buffer. */
export const SecretsKey = z.string().transform((text, ctx) => {
  try {
    return parseSecretsKey(text)
  } catch (err) {
    ctx.issues.push({ code: 'custom', message: (err as Error).message, input: text })
    return z.NEVER
  }
})

/** A BullMQ key prefix: it becomes part of every Redis key. */
export const QueuePrefix = z
  .string()
  .regex(/^[A-Za-z0-9._-]{1,64}$/, 'must be 1-64 characters of A-Z a-z 0-9 . _ -')

/** An Ed25519 private key (PKCS#8 PEM or its 32-byte seed, hex or base64), as a KeyObject. */
export const AuditSigningKey = z.string().transform((text, ctx) => {
  try {
    return parseAuditSigningKey(text)
  } catch (err) {
    ctx.issues.push({ code: 'custom', message: (err as Error).message, input: '(redacted)' })
    return z.NEVER
  }
})
