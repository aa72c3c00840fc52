import { NestedTxError } from './errors.js'

/**
 * Namespaced string key-value storage with transactions: where checkpoints live.
 * Implementations: MemStore here, PgStore in @weave/pgstore (both pass one contract suite).
 */
export interface Store {
  /** The exact stored string (`""` too), or `undefined` when missing; never throws for a missing key. */
  get(ns: string, key: string): Promise<string | undefined>
  /** Inserts or replaces. */
  put(ns: string, key: string, value: string): Promise<void>
  /** Idempotent. */
  delete(ns: string, key: string): Promise<void>
  /** Keys of `ns` starting with `prefix` (taken literally), ascending by Unicode code point. */
  list(ns: string, prefix: string): Promise<string[]>
  /**
   * Runs `fn` with a Store bound to one transaction that reads its own writes: all its writes
   * commit when `fn` resolves, none when it throws.
   * @throws NestedTxError when called on a transaction's store
   */
  tx<T>(fn: (tx: Store) => Promise<T>): Promise<T>
  /** Puts every entry, all or nothing, in one call; joins the transaction on a transaction's store. */
  putMany?(ns: string, entries: ReadonlyArray<readonly [key: string, value: string]>): Promise<void>
}

/** Orders strings by Unicode code point (UTF-8 byte order), unlike `<` on UTF-16 code units. */
export function compareCodePoints(a: string, b: string): number {
  const ia = a[Symbol.iterator]()
  const ib = b[Symbol.iterator]()
  for (;;) {
    const x = ia.next()
    const y = ib.next()
    if (x.done) return y.done ? 0 : -1
    if (y.done) return 1
    const cx = x.value.codePointAt(0)!
    const cy = y.value.codePointAt(0)!
    if (cx !== cy) return cx - cy
  }
}

type Table = Map<string, Map<string, string>>

function tableGet(t: Table, ns: string, key: string): string | undefined {
  return t.get(ns)?.get(key)
}

function tablePut(t: Table, ns: string, key: string, value: string): void {
  let m = t.get(ns)
  if (!m) t.set(ns, (m = new Map()))
  m.set(key, value)
}

function tableKeys(t: Table, ns: string, prefix: string): string[] {
  const m = t.get(ns)
  if (!m) return []
  return [...m.keys()].filter((k) => k.startsWith(prefix))
}

function assertStrings(...values: unknown[]): void {
  for (const v of values) {
    if (typeof v !== 'string')
      throw new TypeError(`store keys and values are strings, got ${typeof v}`)
  }
}

/** An in-memory Store, for tests and for runs that need no durability. Implements `putMany`. */
export class MemStore implements Store {
  readonly #data: Table = new Map()

  async get(ns: string, key: string): Promise<string | undefined> {
    return tableGet(this.#data, ns, key)
  }

  async put(ns: string, key: string, value: string): Promise<void> {
    assertStrings(ns, key, value)
    tablePut(this.#data, ns, key, value)
  }

  async putMany(ns: string, entries: ReadonlyArray<readonly [string, string]>): Promise<void> {
    for (const [k, v] of entries) assertStrings(ns, k, v)
    for (const [k, v] of entries) tablePut(this.#data, ns, k, v)
  }

  async delete(ns: string, key: string): Promise<void> {
    this.#data.get(ns)?.delete(key)
  }

  async list(ns: string, prefix: string): Promise<string[]> {
    return tableKeys(this.#data, ns, prefix).sort(compareCodePoints)
  }

  async tx<T>(fn: (tx: Store) => Promise<T>): Promise<T> {
    const t = new MemTx(this.#data)
    try {
      const value = await fn(t)
      t.commit()
      return value
    } finally {
      t.close()
    }
  }
}

/** A MemStore transaction: writes are buffered (a value, or `null` for a delete) until commit. */
class MemTx implements Store {
  readonly #pending = new Map<string, Map<string, string | null>>()
  #open = true

  constructor(private readonly base: Table) {}

  async get(ns: string, key: string): Promise<string | undefined> {
    this.#check()
    const mine = this.#pending.get(ns)
    if (mine?.has(key)) return mine.get(key) ?? undefined
    return tableGet(this.base, ns, key)
  }

  async put(ns: string, key: string, value: string): Promise<void> {
    this.#check()
    assertStrings(ns, key, value)
    this.#buffer(ns, key, value)
  }

  async putMany(ns: string, entries: ReadonlyArray<readonly [string, string]>): Promise<void> {
    this.#check()
    for (const [k, v] of entries) assertStrings(ns, k, v)
    for (const [k, v] of entries) this.#buffer(ns, k, v)
  }

  async delete(ns: string, key: string): Promise<void> {
    this.#check()
    this.#buffer(ns, key, null)
  }

  async list(ns: string, prefix: string): Promise<string[]> {
    this.#check()
    const keys = new Set(tableKeys(this.base, ns, prefix))
    for (const [k, v] of this.#pending.get(ns) ?? []) {
      if (!k.startsWith(prefix)) continue
      if (v === null) keys.delete(k)
      else keys.add(k)
    }
    return [...keys].sort(compareCodePoints)
  }

  async tx<T>(_fn: (tx: Store) => Promise<T>): Promise<T> {
    throw new NestedTxError()
  }

  /** Applies the buffered writes; the transaction store is unusable afterwards. */
  commit(): void {
    this.#check()
    this.close()
    for (const [ns, m] of this.#pending) {
      for (const [k, v] of m) {
        if (v === null) this.base.get(ns)?.delete(k)
        else tablePut(this.base, ns, k, v)
      }
    }
  }

  /** Ends the transaction without applying anything. */
  close(): void {
    this.#open = false
  }

  #buffer(ns: string, key: string, value: string | null): void {
    let m = this.#pending.get(ns)
    if (!m) this.#pending.set(ns, (m = new Map()))
    m.set(key, value)
  }

  #check(): void {
    if (!this.#open) throw new Error('the transaction has ended')
  }
}
