import { NestedTxError, type Store } from '@weave/kernel'
import type { PoolClient, QueryResult, QueryResultRow } from 'pg'
import { PgKv, type Params } from './pg-kv.js'
import type { KvStatements, Statement } from './statements.js'

/** The Store given to `PgStore.tx`'s callback: every call runs on the transaction's client. */
export class PgTxStore extends PgKv implements Store {
  #isEnded = false
  #failure: { error: unknown } | undefined

  constructor(
    private readonly client: PoolClient,
    sql: KvStatements,
    encodeNs: (ns: string) => string,
    scope: readonly string[],
  ) {
    super(sql, encodeNs, scope)
  }

  /** The first statement error of this transaction, if any: Postgres then refuses the rest. */
  get failure(): { error: unknown } | undefined {
    return this.#failure
  }

  /** Nested transactions are not supported. @throws NestedTxError always, without calling `fn` */
  async tx<T>(_fn: (tx: Store) => Promise<T>): Promise<T> {
    throw new NestedTxError()
  }

  /** Makes every later call throw: the client goes back to the pool and may serve someone else. */
  end(): void {
    this.#isEnded = true
  }

  protected async run<R extends QueryResultRow>(
    statement: Statement,
    params: Params,
  ): Promise<QueryResult<R>> {
    if (this.#isEnded) throw new Error('the transaction has ended; its store can no longer be used')
    try {
      return await this.client.query<R>({ ...statement, values: [...params] })
    } catch (error) {
      this.#failure ??= { error }
      throw error
    }
  }
}
