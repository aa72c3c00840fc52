import { deriveAuditSigningKey, deriveSecretsKey, resolveDatabaseUrls } from '@weave/db'
import type { KeyObject } from 'node:crypto'
import { z } from 'zod'
import {
  AuditSigningKey,
  HttpUrl,
  List,
  LogFormat,
  LogLevel,
  PostgresUrl,
  QueuePrefix,
  RedisUrl,
  SecretsKey,
} from './env-values.js'

/**
 * The variables both the API and the workers read, by section. Each app's own schema spreads
 * these into its object, so a shared variable is parsed by one rule everywhere.
 */
export const SharedEnv = {
  // Database: the runtime login (a LOGIN role that owns nothing, member of weave_app), the
  // tables' owner (used only to migrate), and the single URL of earlier versions, which stands
  // for whichever of the two is unset.
  WEAVE_DATABASE_URL: PostgresUrl.optional(),
  WEAVE_MIGRATE_DATABASE_URL: PostgresUrl.optional(),
  DATABASE_URL: PostgresUrl.optional(),
  // Queues
  REDIS_URL: RedisUrl.default('redis://127.0.0.1:6379'),
  WEAVE_QUEUE_PREFIX: QueuePrefix.default('weave'),
  WEAVE_WORKER_CONCURRENCY: z.coerce.number().int().min(1).max(1000).default(8),
  // Steps' outside world: hosts http steps may call, handler modules, the llm endpoint.
  WEAVE_HTTP_ALLOW: List.default([]),
  WEAVE_HANDLERS: List.default([]),
  WEAVE_LLM_BASE_URL: HttpUrl.optional(),
  WEAVE_LLM_API_KEY: z.string().optional(),
  // Secrets: encrypts webhook signing secrets; outside production it is derived from
  // WEAVE_JWT_SECRET when unset, so the API and workers of a development setup agree without it.
  WEAVE_SECRETS_KEY: SecretsKey.optional(),
  // Signs the audit anchors (Ed25519); outside production it is derived from WEAVE_JWT_SECRET
  // when unset, like the secrets key.
  WEAVE_AUDIT_SIGNING_KEY: AuditSigningKey.optional(),
  LOG_LEVEL: LogLevel.default('info'),
  WEAVE_LOG_FORMAT: LogFormat.default('auto'),
  // Traces go to an OpenTelemetry collector over OTLP/HTTP when either is set; off otherwise.
  // The exporter itself reads OTEL_EXPORTER_OTLP_HEADERS and the other OTLP tuning variables.
  OTEL_EXPORTER_OTLP_ENDPOINT: HttpUrl.optional(),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: HttpUrl.optional(),
  // How long a stop may take once signalled (beyond the shutdown grace of steps in flight) before
  // the process exits anyway, with the status that says it was forced.
  WEAVE_STOP_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(10_000),
  NODE_ENV: z.string().optional(),
}

type SharedValues = z.infer<z.ZodObject<typeof SharedEnv>>

/**
 * The environment with every empty or blank value removed: one rule for both apps, so
 * `WEAVE_X=` in a compose file or a systemd unit means unset, never an invalid empty value.
 */
export function withoutEmptyValues(env: NodeJS.ProcessEnv): Record<string, string> {
  const present: Record<string, string> = {}
  for (const [name, value] of Object.entries(env)) {
    if (value !== undefined && value.trim() !== '') present[name] = value
  }
  return present
}

/** The database URLs the shared variables give (see resolveDatabaseUrls). */
export function databaseUrlsOf(env: SharedValues): { runtime: string; migrate: string } {
  return resolveDatabaseUrls({
    runtime: env.WEAVE_DATABASE_URL,
    migrate: env.WEAVE_MIGRATE_DATABASE_URL,
    legacy: env.DATABASE_URL,
  })
}

/** The secrets key: set, or derived from the development JWT secret outside production. */
export function secretsKeyOf(
  env: SharedValues & { WEAVE_JWT_SECRET?: string | undefined },
): Buffer | undefined {
  if (env.WEAVE_SECRETS_KEY) return env.WEAVE_SECRETS_KEY
  if (env.NODE_ENV !== 'production' && env.WEAVE_JWT_SECRET) {
    return deriveSecretsKey(env.WEAVE_JWT_SECRET)
  }
  return undefined
}

/** The llm endpoint of llm steps, when configured. */
export function llmOf(env: SharedValues): { baseUrl: string; apiKey?: string } | undefined {
  if (!env.WEAVE_LLM_BASE_URL) return undefined
  return {
    baseUrl: env.WEAVE_LLM_BASE_URL,
    ...(env.WEAVE_LLM_API_KEY ? { apiKey: env.WEAVE_LLM_API_KEY } : {}),
  }
}

/** The audit signing key: set, or derived from the development JWT secret outside production. */
export function auditSigningKeyOf(
  env: SharedValues & { WEAVE_JWT_SECRET?: string | undefined },
): KeyObject | undefined {
  if (env.WEAVE_AUDIT_SIGNING_KEY) return env.WEAVE_AUDIT_SIGNING_KEY
  if (env.NODE_ENV !== 'production' && env.WEAVE_JWT_SECRET) {
    return deriveAuditSigningKey(env.WEAVE_JWT_SECRET)
  }
  return undefined
}

/**
 * Where spans are exported (OTLP/HTTP), as the OpenTelemetry variables say: the traces endpoint
 * as given, else `<OTEL_EXPORTER_OTLP_ENDPOINT>/v1/traces`; undefined (tracing off) when neither.
 */
export function otlpTracesUrlOf(env: SharedValues): string | undefined {
  if (env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) return env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT
  if (!env.OTEL_EXPORTER_OTLP_ENDPOINT) return undefined
  return `${env.OTEL_EXPORTER_OTLP_ENDPOINT.replace(/\/+$/, '')}/v1/traces`
}
