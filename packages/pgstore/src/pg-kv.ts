import type { QueryResult, QueryResultRow } from 'pg'
import { prefixUpperBound } from './prefix-range.js'
import type { KvStatements, Statement } from './statements.js'
import { assertText } from './validate.js'

/** A statement's parameters: text, or text[] for `unnest`. */
export type Params = ReadonlyArray<string | readonly string[]>

/**
 * The Store operations other than `tx`, over whatever runs the statements: the pool for PgStore,
 * one checked-out client for a transaction's store. Input is validated before anything is sent,
 * so a bad argument never aborts a transaction.
 */
export abstract class PgKv {
  constructor(
    protected readonly sql: KvStatements,
    protected readonly encodeNs: (ns: string) => string,
    /** Parameters every statement takes first: none, or the tenant setting and the tenant. */
    protected readonly scope: readonly string[] = [],
  ) {}

  /**
   * The stored `ns` column of namespace `ns` in this store: what a statement written outside the
   * store (a host's own checkpoint write) must use to address the same rows.
   */
  namespaceColumn(ns: string): string {
    assertText('namespace', ns)
    return this.encodeNs(ns)
  }

  protected abstract run<R extends QueryResultRow>(
    statement: Statement,
    params: Params,
  ): Promise<QueryResult<R>>

  /** The exact stored string, or `undefined` when missing. @throws TypeError on a non-text argument */
  async get(ns: string, key: string): Promise<string | undefined> {
    assertText('namespace', ns)
    assertText('key', key)
    const { rows } = await this.run<{ value: string | null }>(this.sql.get, [
      ...this.scope,
      this.encodeNs(ns),
      key,
    ])
    return rows[0]?.value ?? undefined
  }

  /** Inserts or replaces. @throws TypeError on a non-text argument */
  async put(ns: string, key: string, value: string): Promise<void> {
    assertText('namespace', ns)
    assertText('key', key)
    assertText('value', value)
    await this.run(this.sql.put, [...this.scope, this.encodeNs(ns), key, value])
  }

  /** Puts every entry in one statement, all or nothing; a repeated key keeps its last value. @throws TypeError on a non-text argument */
  async putMany(ns: string, entries: ReadonlyArray<readonly [string, string]>): Promise<void> {
    assertText('namespace', ns)
    const latest = new Map<string, string>()
    for (const [key, value] of entries) {
      assertText('key', key)
      assertText('value', value)
      latest.set(key, value)
    }
    if (latest.size === 0) return
    await this.run(this.sql.putMany, [
      ...this.scope,
      this.encodeNs(ns),
      [...latest.keys()],
      [...latest.values()],
    ])
  }

  /** Idempotent. @throws TypeError on a non-text argument */
  async delete(ns: string, key: string): Promise<void> {
    assertText('namespace', ns)
    assertText('key', key)
    await this.run(this.sql.delete, [...this.scope, this.encodeNs(ns), key])
  }

  /** Keys of `ns` starting with `prefix` (literally), in code point order. @throws TypeError on a non-text argument */
  async list(ns: string, prefix: string): Promise<string[]> {
    assertText('namespace', ns)
    assertText('prefix', prefix)
    const upper = prefixUpperBound(prefix)
    const encoded = this.encodeNs(ns)
    const { rows } =
      upper === undefined
        ? await this.run<{ key: string }>(this.sql.listFrom, [...this.scope, encoded, prefix])
        : await this.run<{ key: string }>(this.sql.listRange, [
            ...this.scope,
            encoded,
            prefix,
            upper,
          ])
    return rows.map((r) => r.key)
  }
}
