import {
  createWebhook,
  deleteWebhook,
  getWebhook,
  listWebhookDeliveries,
  listWebhooks,
  rotateWebhookSecret,
  withTenant,
  type Database,
  type WebhookDelivery,
  type WebhookRow,
} from '@weave/db'
import type { EgressPolicy } from '@weave/spec'
import type { Principal } from '../auth/principal.js'
import {
  BadRequestError,
  ForbiddenError,
  NotFoundError,
  ServiceUnavailableError,
} from '../http/app-errors.js'
import type {
  CreateWebhookBody,
  CreatedWebhook,
  DeliveryPage,
  DeliveryView,
  RotateSecretBody,
  RotatedSecret,
  WebhookPage,
  WebhookView,
} from '../schemas/webhooks.js'
import type { AuditContext } from './deps.js'
import { auditRequest } from './audit-request.js'

/** Outbound webhooks as the API offers them. */
export interface WebhookService {
  /**
   * Registers a webhook after checking its URL against the egress policy; the answer carries
   * the signing secret, which is never shown again. Writes `webhook.created` to the audit log.
   * A webhook given `approvals:decide` receives approval links, so only a caller who may decide
   * approvals can give it: `webhooks:manage` alone is not enough to approve.
   * @throws {BadRequestError} `webhook-url-refused`; {ForbiddenError} when the caller lacks a
   *   scope it gives the webhook; {ServiceUnavailableError} without a secrets key
   */
  create(
    tenant: string,
    principal: Pick<Principal, 'subject' | 'scopes'>,
    body: CreateWebhookBody,
    context: AuditContext,
  ): Promise<CreatedWebhook>
  /** The tenant's webhooks, newest first. @throws InvalidCursorError (`invalid-cursor`) */
  list(tenant: string, query: { limit: number; cursor?: string | undefined }): Promise<WebhookPage>
  /**
   * Deletes a webhook; its pending deliveries are not sent. Writes `webhook.deleted`.
   * @throws {NotFoundError} `webhook-not-found`
   */
  remove(
    tenant: string,
    principal: Pick<Principal, 'subject'>,
    id: string,
    context: AuditContext,
  ): Promise<void>
  /**
   * Gives a webhook a new signing secret, shown once; the replaced one keeps signing deliveries
   * for `graceSeconds` (default 24 h). Writes `webhook.secret-rotated` (without either secret).
   * @throws {NotFoundError} `webhook-not-found`; {ServiceUnavailableError} without a secrets key
   */
  rotateSecret(
    tenant: string,
    principal: Pick<Principal, 'subject'>,
    id: string,
    body: RotateSecretBody,
    context: AuditContext,
  ): Promise<RotatedSecret>
  /**
   * A webhook's deliveries with every attempt, newest first. Payloads are not shown: they hold
   * run data that `webhooks:manage` does not grant reading.
   * @throws {NotFoundError} `webhook-not-found`; InvalidCursorError (`invalid-cursor`)
   */
  deliveries(
    tenant: string,
    id: string,
    query: { limit: number; cursor?: string | undefined },
  ): Promise<DeliveryPage>
}

/** What {@link createWebhookService} needs. */
export interface WebhookServiceDeps {
  database: Database
  /** Encrypts signing secrets; without it webhooks cannot be registered (503). */
  secretsKey?: Buffer | undefined
  /** The `http` steps' egress policy (WEAVE_HTTP_ALLOW), applied to webhook URLs. */
  egress: EgressPolicy
}

/** How long a rotated-out secret keeps signing when the request names no grace. */
const DEFAULT_GRACE_SECONDS = 24 * 3600

/** Builds the {@link WebhookService}. */
export function createWebhookService(deps: WebhookServiceDeps): WebhookService {
  const { database } = deps
  const notFound = (id: string) =>
    new NotFoundError(`No webhook ${id}.`, { problem: 'webhook-not-found' })
  const secretsKey = (): Buffer => {
    if (deps.secretsKey) return deps.secretsKey
    throw new ServiceUnavailableError(
      'Webhooks are not available: this server has no WEAVE_SECRETS_KEY.',
    )
  }
  return {
    async create(tenant, principal, body, context) {
      const key = secretsKey()
      // A scope given to a webhook is one its creator holds: no one gains a power through it.
      const missing = (body.scopes ?? []).find((scope) => !principal.scopes.has(scope))
      if (missing !== undefined) {
        throw new ForbiddenError(
          `Giving a webhook the scope "${missing}" needs a token holding it too.`,
          { requiredScope: missing },
        )
      }
      const refusal = await refusalOf(deps.egress, body.url)
      if (refusal !== undefined) {
        throw new BadRequestError(`The webhook URL is refused: ${refusal}.`, {
          problem: 'webhook-url-refused',
          errors: [{ path: '/body/url', message: refusal }],
        })
      }
      const { webhook, secret } = await withTenant(database, tenant, async (tx) => {
        const created = await createWebhook(tx, key, { ...body, createdBy: principal.subject })
        await auditRequest(
          tx,
          { principal, context },
          {
            action: 'webhook.created',
            target: { kind: 'webhook', id: created.webhook.id },
            details: {
              url: created.webhook.url,
              events: created.webhook.events,
              scopes: created.webhook.scopes,
            },
          },
        )
        return created
      })
      return { ...toWebhookView(webhook), secret }
    },

    async list(tenant, query) {
      const page = await withTenant(database, tenant, (tx) => listWebhooks(tx, query))
      return { items: page.items.map(toWebhookView), nextCursor: page.nextCursor }
    },

    async remove(tenant, principal, id, context) {
      const deleted = await withTenant(database, tenant, async (tx) => {
        const row = await deleteWebhook(tx, id)
        if (!row) return null
        await auditRequest(
          tx,
          { principal, context },
          {
            action: 'webhook.deleted',
            target: { kind: 'webhook', id: row.id },
            details: { url: row.url },
          },
        )
        return row
      })
      if (!deleted) throw notFound(id)
    },

    async rotateSecret(tenant, principal, id, body, context) {
      const key = secretsKey()
      const graceSeconds = body.graceSeconds ?? DEFAULT_GRACE_SECONDS
      const rotated = await withTenant(database, tenant, async (tx) => {
        const result = await rotateWebhookSecret(tx, key, id, { graceSeconds })
        if (!result) return null
        const { previousSecretExpiresAt } = result.webhook
        await auditRequest(
          tx,
          { principal, context },
          {
            action: 'webhook.secret-rotated',
            target: { kind: 'webhook', id: result.webhook.id },
            details: {
              graceSeconds,
              previousSecretExpiresAt: previousSecretExpiresAt?.toISOString() ?? null,
            },
          },
        )
        return result
      })
      if (!rotated) throw notFound(id)
      return {
        id: rotated.webhook.id,
        secret: rotated.secret,
        previousSecretExpiresAt: rotated.webhook.previousSecretExpiresAt?.toISOString() ?? null,
      }
    },

    async deliveries(tenant, id, query) {
      const page = await withTenant(database, tenant, async (tx) =>
        (await getWebhook(tx, id)) ? listWebhookDeliveries(tx, id, query) : null,
      )
      if (!page) throw notFound(id)
      return { items: page.items.map(toDeliveryView), nextCursor: page.nextCursor }
    },
  }
}

async function refusalOf(egress: EgressPolicy, url: string): Promise<string | undefined> {
  try {
    return await egress.check(new URL(url))
  } catch {
    return `host "${new URL(url).hostname}" does not resolve`
  }
}

function toWebhookView(webhook: WebhookRow): WebhookView {
  return {
    id: webhook.id,
    url: webhook.url,
    events: webhook.events,
    scopes: webhook.scopes,
    createdBy: webhook.createdBy,
    createdAt: webhook.createdAt.toISOString(),
  }
}

function toDeliveryView(delivery: WebhookDelivery): DeliveryView {
  return {
    id: delivery.id,
    webhookId: delivery.webhookId,
    eventType: delivery.eventType,
    runId: delivery.runId,
    eventSeq: delivery.eventSeq,
    eventId: delivery.eventId,
    status: delivery.status,
    attempts: delivery.attemptLog.map((a) => ({
      attempt: a.attempt,
      statusCode: a.statusCode,
      error: a.error,
      durationMs: a.durationMs,
      at: a.at.toISOString(),
    })),
    nextAttemptAt: delivery.status === 'pending' ? delivery.nextAttemptAt.toISOString() : null,
    createdAt: delivery.createdAt.toISOString(),
    updatedAt: delivery.updatedAt.toISOString(),
  }
}
