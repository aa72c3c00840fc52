import pg from 'pg'
import { mdTable } from '../kernel/report.js'

/** What the sampled Postgres backends were doing, counted over the samples. */
export interface WaitSample {
  samples: number
  /**
   * Backends seen in a statement or a transaction, by `wait (statement)`: the wait event, "on
   * CPU", or "idle in transaction" with the last statement it ran.
   */
  counts: Map<string, number>
}

/** A running sampler; `stop` ends it and returns what it saw. */
export interface WaitSampler {
  stop(): Promise<WaitSample>
}

const INTERVAL_MS = 100

// The sampler's own connection is left out; statements are cut to their first words. A backend
// "idle in transaction" waits for Weave to send its next statement, holding the locks it took.
const QUERY = `SELECT CASE WHEN state = 'active'
    THEN coalesce(wait_event_type || ': ' || wait_event, 'on CPU')
    ELSE 'idle in transaction' END AS wait,
  left(regexp_replace(query, '\\s+', ' ', 'g'), 48) AS statement
FROM pg_stat_activity
WHERE datname = current_database() AND state IN ('active', 'idle in transaction')
  AND pid <> pg_backend_pid()`

/**
 * Samples `pg_stat_activity` of the benchmark's database every 100 ms until stopped: which
 * statements the busy backends run and what they wait on, to show where Weave queues.
 */
export async function startWaitSampler(databaseUrl: string): Promise<WaitSampler> {
  const client = new pg.Client({ connectionString: databaseUrl })
  await client.connect()
  const counts = new Map<string, number>()
  let samples = 0
  let isStopped = false
  const loop = (async (): Promise<void> => {
    while (!isStopped) {
      const { rows } = await client.query<{ wait: string; statement: string }>(QUERY)
      samples += 1
      for (const { wait, statement } of rows) {
        const key = `${wait} (\`${statement.replaceAll('`', "'").replaceAll('|', '/')}\`)`
        counts.set(key, (counts.get(key) ?? 0) + 1)
      }
      await new Promise((r) => setTimeout(r, INTERVAL_MS))
    }
  })()
  return {
    async stop() {
      isStopped = true
      try {
        await loop
      } finally {
        await client.end()
      }
      return { samples, counts }
    },
  }
}

/** The `top` most frequent things busy backends did, as a table: mean backends per sample. */
export function waitTable(sample: WaitSample, top = 6): string {
  const total = [...sample.counts.values()].reduce((a, b) => a + b, 0)
  const rows = [...sample.counts.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([what, n]) => [
      what,
      (n / Math.max(1, sample.samples)).toFixed(2),
      `${((100 * n) / Math.max(1, total)).toFixed(0)}%`,
    ])
  return mdTable(
    ['backend: wait or state (statement)', 'backends per sample (mean)', 'share'],
    rows,
  )
}
