import type { Store } from '@weave/kernel'
import type { Pool, QueryResult, QueryResultRow } from 'pg'
import { namespaceEncoder } from './namespace.js'
import { PgKv, type Params } from './pg-kv.js'
import { PgTxStore } from './pg-tx-store.js'
import { DEFAULT_TABLE, MAX_TABLE_LENGTH } from './migrate.js'
import { kvStatements, kvTenantStatements, type Statement } from './statements.js'
import { assertIdentifier, assertText } from './validate.js'

/** The setting a tenant-bound store sets for row-level security unless told otherwise. */
export const DEFAULT_TENANT_SETTING = 'weave.tenant'

/** Options of a PgStore. */
export interface PgStoreOptions {
  /** Runs every call; `tx` checks out one client per transaction. The caller owns (and ends) it. */
  pool: Pool
  /** Scopes every namespace (e.g. `checkpoint:`): stores with different prefixes share no key. Default `''`. */
  prefix?: string
  /** The table, created by `migrate` or migrations/pgstore; matches /^[a-z_][a-z0-9_]*$/. Default `weave_kv`. */
  table?: string
  /**
   * Binds the store to one tenant: its rows carry the tenant in `tenant_id`, every statement
   * touches only that tenant's rows, and sets `tenantSetting` to it for the statement, so
   * row-level security policies on the table bind the store too. Stores of two tenants share no
   * key whatever their prefixes.
   */
  tenant?: string
  /** The transaction-local setting holding the tenant, read by the table's policies. Default `weave.tenant`. */
  tenantSetting?: string
}

/**
 * The kernel's Store on PostgreSQL: one row per (namespace, key) in one table, keys listed in code
 * point order, `putMany` as one statement and `tx` as one Postgres transaction.
 */
export class PgStore extends PgKv implements Store {
  readonly #pool: Pool

  /**
   * @throws TypeError when `table` is not a plain identifier, or `prefix`, `tenant` or
   *   `tenantSetting` is not storable text (a tenant must not be empty)
   */
  constructor(options: PgStoreOptions) {
    const table = options.table ?? DEFAULT_TABLE
    const prefix = options.prefix ?? ''
    assertText('prefix', prefix)
    const tenant = options.tenant
    if (tenant === undefined) {
      assertIdentifier('table', table)
      super(kvStatements(table), namespaceEncoder(prefix))
    } else {
      assertIdentifier('table', table, MAX_TABLE_LENGTH)
      assertText('tenant', tenant)
      if (tenant === '') throw new TypeError('store tenant must not be empty')
      const setting = options.tenantSetting ?? DEFAULT_TENANT_SETTING
      assertText('tenant setting', setting)
      super(kvTenantStatements(table), namespaceEncoder(prefix), [setting, tenant])
    }
    this.#pool = options.pool
  }

  /**
   * Runs `fn` in one transaction on one client: COMMIT when it resolves, ROLLBACK when it throws
   * (rejecting with its error); the client always goes back to the pool, or is destroyed when the
   * connection failed.
   * @throws NestedTxError from the transaction's store's `tx`
   * @throws Error when a statement in the transaction failed and Postgres rolled it back at COMMIT
   */
  async tx<T>(fn: (tx: Store) => Promise<T>): Promise<T> {
    const client = await this.#pool.connect()
    let broken: Error | undefined
    // A checked-out client with no 'error' listener would crash the process if its connection died.
    const onError = (err: Error): void => {
      broken ??= err
    }
    client.on('error', onError)
    const control = async (command: string): Promise<QueryResult> => {
      try {
        return await client.query(command)
      } catch (err) {
        broken ??= err instanceof Error ? err : new Error(String(err))
        throw err
      }
    }
    const t = new PgTxStore(client, this.sql, this.encodeNs, this.scope)
    try {
      await control('BEGIN')
      return await commitOrRollBack(t, fn, control)
    } finally {
      t.end()
      client.removeListener('error', onError)
      // release(err) destroys the client instead of pooling a connection in an unknown state.
      client.release(broken)
    }
  }

  protected run<R extends QueryResultRow>(
    statement: Statement,
    params: Params,
  ): Promise<QueryResult<R>> {
    return this.#pool.query<R>({ ...statement, values: [...params] })
  }
}

async function commitOrRollBack<T>(
  t: PgTxStore,
  fn: (tx: Store) => Promise<T>,
  control: (command: string) => Promise<QueryResult>,
): Promise<T> {
  let value: T
  try {
    value = await fn(t)
  } catch (err) {
    t.end()
    // A failed ROLLBACK has marked the client broken; fn's error is the one to report.
    await control('ROLLBACK').catch(() => undefined)
    throw err
  }
  t.end()
  const result = await control('COMMIT')
  // COMMIT of a transaction aborted by a failed statement (which fn may have caught) rolls back.
  if (result.command === 'ROLLBACK') {
    throw new Error('the transaction was rolled back because one of its statements failed', {
      cause: t.failure?.error,
    })
  }
  return value
}
