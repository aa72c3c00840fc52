/** A page of a list, newest first unless stated; `nextCursor` is null on the last page. */
export interface Page<T> {
  items: T[]
  nextCursor: string | null
}

/** Paging options every list takes: `limit` 1–200 (default 50) and an opaque cursor. */
export interface PageOptions {
  limit?: number
  cursor?: string | null
}
