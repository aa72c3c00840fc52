import type pg from 'pg'

/**
 * Appends the text of every statement the pool's clients send to `statements`, from each
 * client's next checkout on (clients connected before the call included), so a test can count a
 * path's round trips.
 */
export function recordStatements(pool: pg.Pool, statements: string[]): void {
  const recorded = new WeakSet<pg.PoolClient>()
  pool.on('acquire', (client) => {
    if (recorded.has(client)) return
    recorded.add(client)
    const query = client.query.bind(client) as (...args: unknown[]) => unknown
    client.query = ((...args: unknown[]) => {
      const [first] = args
      statements.push(typeof first === 'string' ? first : (first as { text: string }).text)
      return query(...args)
    }) as typeof client.query
  })
}
