import { randomBytes } from 'node:crypto'
import type { LightMyRequestResponse } from 'fastify'
import { createApiServices } from '../../src/services/api-services.js'
import { buildTestApp, callerFor, createHarness, type Call, type Harness } from './harness.js'

/** The harness plus an app whose services have a secrets key and an allow list. */
export interface WebhookHarness extends Harness {
  /** Calls the app with webhooks enabled (`call` is the harness's app, without a key). */
  callWithWebhooks(call: Call): Promise<LightMyRequestResponse>
  secretsKey: Buffer
}

/** The hosts allow-listed for webhooks, besides public ones. */
export const ALLOWED_HOST = '127.0.0.1:9999'

/** Builds a harness and, over the same database and queues, an app that can register webhooks. */
export async function createWebhookHarness(prefix: string): Promise<WebhookHarness> {
  const h = await createHarness(prefix)
  const secretsKey = randomBytes(32)
  const services = createApiServices({
    database: h.database,
    jobs: h.queues,
    registry: h.registry,
    secretsKey,
    // Names never resolve here: a refused registration must not wait on DNS.
    httpAllow: [ALLOWED_HOST],
    lookup: async (host) => {
      throw new Error(`no DNS in tests (${host})`)
    },
  })
  const app = await buildTestApp(services)
  return {
    ...h,
    secretsKey,
    callWithWebhooks: callerFor(app),
    close: async () => {
      await app.close()
      await h.close()
    },
  }
}
