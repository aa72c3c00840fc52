import { drizzle, type NodePgDatabase } from 'drizzle-orm/node-postgres'
import pg from 'pg'
import { type AuditChainErrorHandler, onAuditChainError } from './audit-chain-errors.js'
import * as schema from './schema/index.js'
import { APP_ROLE, TENANT_SETTING, TRACE_PARENT_SETTING } from './schema/roles.js'
import { activeTraceParent } from './trace-parent.js'

/** The drizzle schema object of `@weave/db`. */
export type Schema = typeof schema

/** A drizzle database over the pool. */
export type Db = NodePgDatabase<Schema>

/** A drizzle transaction of `Db`. */
export type DbTransaction = Parameters<Parameters<Db['transaction']>[0]>[0]

/** A pool of connections running as the app role, its drizzle handle, and a way to close both. */
export interface Database {
  readonly pool: pg.Pool
  readonly db: Db
  close(): Promise<void>
}

/** Options of `createDb`. */
export interface CreateDbOptions {
  connectionString: string
  /** Pool size (default 10). */
  max?: number
  /** Receives errors of pooled connections, idle or checked out (default: ignored). */
  onError?: (err: Error) => void
  /**
   * How long a query waits for a connection, new or from the pool, before it fails as
   * unavailable (default 5 s): a server that does not answer (a dropped network, not a refused
   * connection) must not hold requests for the operating system's TCP timeout.
   */
  connectTimeoutMs?: number
  /** How long a connection may sit idle in the pool before it is closed (default 5 min). */
  idleTimeoutMs?: number
  /**
   * Receives a failed call chaining pending audit events after a commit (default: ignored); the
   * events stay pending, durable, until a later call or the worker's reconciler chains them.
   */
  onAuditChainError?: AuditChainErrorHandler
}

/** How long a query waits for a connection by default. */
export const DEFAULT_CONNECT_TIMEOUT_MS = 5_000

/**
 * How long an idle connection stays open by default. pg closes one after 10 s, but a new Weave
 * backend is dear: it compiles the plpgsql functions, loads the catalog entries of every table,
 * index and policy it touches and plans each statement again. Closing after every short lull
 * made the next burst pay all of it (bench/e2e/README.md, twenty-first round).
 */
export const DEFAULT_IDLE_TIMEOUT_MS = 300_000

/**
 * The transaction every query function takes first: a drizzle transaction in which the tenant
 * is set for row-level security, and that tenant, which each query also filters on.
 */
export interface TenantTx {
  readonly db: DbTransaction
  readonly tenant: string
  /**
   * Runs `action` once the transaction has committed, never when it rolls back; withTenant starts
   * the actions together and returns when all have finished. The change is committed whatever an
   * action does, so an action handles its own failures instead of rejecting.
   */
  afterCommit(action: AfterCommit): void
}

/** Work that must follow a commit (a job's enqueue, chaining audit events); gets the pool. */
export type AfterCommit = (pool: pg.Pool) => Promise<unknown>

/**
 * Opens a pool whose connections all run as `weave_app`, so row-level security binds them. The
 * role is a startup parameter of each connection (`-c role=weave_app`), so no query can ever run
 * before it is in force; withTenant sets it again per transaction as a second guard.
 */
export function createDb(options: CreateDbOptions): Database {
  const pool = new pg.Pool({
    connectionString: options.connectionString,
    max: options.max ?? 10,
    connectionTimeoutMillis: options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
    idleTimeoutMillis: options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS,
    options: `-c role=${APP_ROLE}`,
  })
  const onError = options.onError ?? (() => undefined)
  pool.on('error', onError)
  // A connection lost while checked out (a Postgres restart) emits 'error' on its client: without
  // a listener that would end the process. The query in progress fails with the same error, and
  // the pool discards the broken client when it is released.
  pool.on('connect', (client) => client.on('error', onError))
  if (options.onAuditChainError) onAuditChainError(pool, options.onAuditChainError)
  const db = drizzle({ client: pool, schema })
  return { pool, db, close: () => pool.end() }
}

/**
 * Runs `fn` in one transaction as the app role with `weave.tenant` set to `tenant` (local to the
 * transaction, so a pooled connection never carries a tenant into the next one). Commits when
 * `fn` resolves, rolls back when it throws. After the commit it runs what `fn` queued with
 * `tx.afterCommit`, and returns once that is done.
 * @throws TypeError when `tenant` is empty; whatever `fn` throws.
 */
export async function withTenant<T>(
  database: Pick<Database, 'db'>,
  tenant: string,
  fn: (tx: TenantTx) => Promise<T>,
): Promise<T> {
  if (typeof tenant !== 'string' || tenant.length === 0) {
    throw new TypeError('tenant must be a non-empty string')
  }
  // drizzle keeps the pool it was made with as `$client` (createDb's pool).
  const pool = (database.db as Db & { $client: pg.Pool }).$client
  const client = await pool.connect()
  // Set when the connection's state is unknown (its BEGIN or ROLLBACK failed): the pool drops it.
  let broken: Error | undefined
  try {
    // BEGIN and the settings in one round trip: a simple-protocol query may hold several
    // statements, but no parameters, so the tenant goes in as an escaped literal. The active
    // span's traceparent, when there is one, is set too: rows created in the transaction (a
    // webhook delivery's trace_parent default) continue its trace.
    const traceParent = activeTraceParent()
    await client.query(
      `begin; select set_config('role', '${APP_ROLE}', true), ` +
        `set_config('${TENANT_SETTING}', ${client.escapeLiteral(tenant)}, true)` +
        (traceParent === undefined
          ? ''
          : `, set_config('${TRACE_PARENT_SETTING}', ${client.escapeLiteral(traceParent)}, true)`),
    )
  } catch (err) {
    client.release(err instanceof Error ? err : true)
    throw err
  }
  const afterCommit: AfterCommit[] = []
  let result: T
  try {
    result = await fn({
      db: transactionDb(client),
      tenant,
      afterCommit: (action) => afterCommit.push(action),
    })
    await client.query('commit')
  } catch (err) {
    await client.query('rollback').catch((rollbackError: Error) => {
      broken = rollbackError
    })
    throw err
  } finally {
    client.release(broken)
  }
  // After the connection is back in the pool: an action may need one of its own.
  if (afterCommit.length > 0) await Promise.all(afterCommit.map((action) => action(pool)))
  return result
}

// One drizzle handle per pooled connection, made when the connection is first used by
// withTenant: building one parses the whole schema, too much for every transaction.
const transactionDbs = new WeakMap<pg.PoolClient, DbTransaction>()

/**
 * The drizzle handle of a connection inside withTenant's transaction. It is typed as a drizzle
 * transaction, which is what every query function takes; nothing calls `rollback()` or opens a
 * nested transaction on it (withTenant's callers throw instead).
 */
function transactionDb(client: pg.PoolClient): DbTransaction {
  let db = transactionDbs.get(client)
  if (!db) {
    db = drizzle({ client, schema }) as unknown as DbTransaction
    transactionDbs.set(client, db)
  }
  return db
}
