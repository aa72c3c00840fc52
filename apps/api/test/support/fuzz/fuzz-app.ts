import { randomBytes } from 'node:crypto'
import { Writable } from 'node:stream'
import { GraphRegistry, deriveAuditSigningKey } from '@weave/db'
import { createJobQueues, redisConnection } from '@weave/queue'
import { TEST_REDIS_URL } from '../../../../../test/support/service-urls.js'
import { buildApp, type App } from '../../../src/app.js'
import { mintDevToken } from '../../../src/auth/dev-token.js'
import { createLogger } from '../../../src/logger.js'
import { resourceRoutes } from '../../../src/routes/index.js'
import { createApiServices } from '../../../src/services/api-services.js'
import { SECRET, testConfig } from '../../support.js'
import { createTestDatabase, randomTenant } from '../database.js'
import { PRICING_SPEC } from '../fixtures.js'
import { ALL_SCOPES } from '../harness.js'
import { forgedCursor } from './forged-cursor.js'
import { WEBHOOK_URL, collectCursors, seedSchemas, seedTenant, seedWebhook } from './fuzz-seed.js'
import type { FuzzSeeds } from './request-arbitrary.js'
import { graphSpec } from './spec-arbitrary.js'
import { obliterateQueues } from '../../../../../test/support/queue-cleanup.js'

/** The API under fuzz, the data seeded into it, and what it logged at error level. */
export interface FuzzApp {
  app: App
  seeds: FuzzSeeds
  /** A position in the error log, for {@link FuzzApp.errorsSince}. */
  logMark(): number
  /** Error-level log lines written since `mark`. */
  errorsSince(mark: number): string[]
  close(): Promise<void>
}

/**
 * Builds the real API as the CLI composes it (a Postgres database and BullMQ queues of its own,
 * webhooks enabled with an allow-listed host, no worker), with default limits and rate limiting
 * off, and seeds a tenant (see seedTenant) and a webhook.
 */
export async function createFuzzApp(prefix: string): Promise<FuzzApp> {
  const db = await createTestDatabase(prefix)
  const queues = createJobQueues({
    connection: redisConnection(TEST_REDIS_URL),
    prefix: `weave-test-${randomBytes(6).toString('hex')}`,
  })
  const lines: string[] = []
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(...chunk.toString().split('\n').filter(Boolean))
      done()
    },
  })
  const registry = new GraphRegistry(db.database)
  const log = createLogger({ level: 'error', destination })
  const services = createApiServices({
    database: db.database,
    jobs: queues,
    registry,
    log,
    secretsKey: randomBytes(32),
    // Configured as production requires, so every operation answers as it does there.
    auditSigningKey: deriveAuditSigningKey('the audit signing secret of the fuzz tests'),
    httpAllow: [new URL(WEBHOOK_URL).host],
    // No DNS here: a host name must be refused without waiting on a resolver.
    lookup: async (host) => {
      throw new Error(`no DNS in tests (${host})`)
    },
  })
  const app = buildApp({
    config: testConfig({ LOG_LEVEL: 'error', WEAVE_RATE_LIMIT_PER_MINUTE: '0' }),
    log,
    services,
    routes: resourceRoutes,
  })
  await app.ready()

  const tenant = randomTenant()
  const token = (forTenant: string, scopes: readonly string[]) =>
    mintDevToken({
      secret: SECRET,
      tenant: forTenant,
      subject: 'fuzzer',
      scopes,
      audience: 'weave',
      expiresIn: 3600,
    })
  const data = await seedTenant(db.database, registry, tenant)
  const tokens = {
    all: await token(tenant, ALL_SCOPES),
    otherTenant: await token(randomTenant(), ALL_SCOPES),
    noScopes: await token(tenant, []),
  }
  const webhookIds = await seedWebhook(app, tokens.all)
  const schemas = await seedSchemas(app, tokens.all, db.database, tenant)
  const cursors = await collectCursors(app, tokens.all)

  const seeds: FuzzSeeds = {
    tokens,
    pathSets: [
      ...[1, 2, 3].map((seq) => ({
        prefix: '/v1/runs/',
        values: { id: data.executedRunId, seq: String(seq) },
      })),
      ...[...data.runIds, ...schemas.runIds].map((id) => ({
        prefix: '/v1/runs/',
        values: { id },
      })),
      ...data.approvalIds.map((id) => ({ prefix: '/v1/approvals/', values: { id } })),
      ...data.graphNames.map((name) => ({ prefix: '/v1/graphs/', values: { name, version: '1' } })),
      ...webhookIds.map((id) => ({ prefix: '/v1/webhooks/', values: { id } })),
      ...data.linkTokens.map((link) => ({
        prefix: '/v1/approval-hooks/',
        values: { token: link },
      })),
    ],
    pathValues: {
      id: [...data.runIds, ...data.approvalIds, ...webhookIds, data.auditId],
      name: data.graphNames,
      version: ['1', '2'],
      seq: ['0', '1', '2', '3'],
      token: data.linkTokens,
    },
    queryValues: {
      cursor: cursors,
      runId: data.runIds,
      graph: [...data.graphNames, ...schemas.graphNames],
      actor: ['fuzzer', 'seed', 'author'],
      action: ['seed.created', 'run.started', 'graph.registered'],
      targetId: [...data.runIds, ...data.graphNames],
    },
    queryArbitraries: { cursor: forgedCursor() },
    bodyHints: {
      graph: [...data.graphNames, ...schemas.graphNames],
      name: data.graphNames,
      runId: data.runIds,
      spec: [PRICING_SPEC],
      materialHash: data.materialHashes,
      seq: [1, 2, 3],
      version: [1, 2],
      input: [{ amount: 10 }, { amount: 500, note: 'big' }, { address: '1 Main St' }],
      url: [
        WEBHOOK_URL,
        'https://hooks.example.com/weave',
        'http://10.0.0.1/hook',
        'http://[::1]:9999/hook',
        'file:///etc/passwd',
      ],
    },
    bodyArbitraries: { spec: graphSpec() },
  }

  return {
    app,
    seeds,
    logMark: () => lines.length,
    errorsSince: (mark) => lines.slice(mark),
    close: async () => {
      await app.close()
      await obliterateQueues(queues)
      await queues.close()
      await db.drop()
    },
  }
}
