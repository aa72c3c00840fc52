/**
 * A map holding at most `capacity` entries: setting one more drops the least recently read or
 * set. Map keeps insertion order, so the first key is the least recent one.
 */
export class LruMap<K, V> {
  readonly #entries = new Map<K, V>()

  constructor(readonly capacity: number) {
    if (!Number.isSafeInteger(capacity) || capacity < 1) {
      throw new RangeError('capacity must be a positive integer')
    }
  }

  /** The entry's value, now the most recent; undefined when absent. */
  get(key: K): V | undefined {
    const value = this.#entries.get(key)
    if (value === undefined) return undefined
    this.#entries.delete(key)
    this.#entries.set(key, value)
    return value
  }

  /** Sets the entry, now the most recent, dropping the least recent one beyond the capacity. */
  set(key: K, value: V): void {
    this.#entries.delete(key)
    this.#entries.set(key, value)
    if (this.#entries.size > this.capacity) this.#entries.delete(this.#entries.keys().next().value!)
  }

  /** Removes the entry. */
  delete(key: K): void {
    this.#entries.delete(key)
  }

  /** How many entries it holds. */
  get size(): number {
    return this.#entries.size
  }
}
