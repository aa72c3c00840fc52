import type pg from 'pg'
import { BARE_TABLE } from './db.js'
import { STEP_NAMES, STEPS, type BenchState } from './state.js'

/** The floor in memory: await five async functions, spreading each one's field into the state. */
export async function bareRun(input: BenchState): Promise<BenchState> {
  let state = input
  for (const step of STEPS) state = { ...state, ...(await step(state)) }
  return state
}

// The same statement PgStore runs for `put`, named so pg prepares it once per connection.
const UPSERT = {
  name: 'bench_bare_upsert',
  text: `INSERT INTO ${BARE_TABLE} (ns, key, value) VALUES ($1, $2, $3)
         ON CONFLICT (ns, key) DO UPDATE SET value = EXCLUDED.value, updated_at = now()`,
}
const SELECT = {
  name: 'bench_bare_select',
  text: `SELECT value FROM ${BARE_TABLE} WHERE ns = $1 AND key = $2`,
}
// As long as the namespace PgStore stores for the kernel's checkpoints ("0:checkpoint:bench").
const NS = '0:checkpoint:bare'

/** The floor with Postgres: one upsert of `{ state, step, seq }` per step, on a shared pool. */
export class BarePg {
  constructor(private readonly pool: pg.Pool) {}

  /** A full run of the five steps under `key` (default: a fresh id). */
  async run(input: BenchState, key: string = globalThis.crypto.randomUUID()): Promise<BenchState> {
    return this.#steps(key, input, 0, STEP_NAMES.length)
  }

  /**
   * A pause/resume cycle: steps 1-3, then, as a resuming process would, the row read back with a
   * fresh query, parsed, `approved` merged in, and steps 4-5.
   * @throws Error when the row written by step 3 is missing
   */
  async cycle(input: BenchState): Promise<BenchState> {
    const key = globalThis.crypto.randomUUID()
    await this.#steps(key, input, 0, 3)
    const { rows } = await this.pool.query<{ value: string }>({ ...SELECT, values: [NS, key] })
    const raw = rows[0]?.value
    if (raw === undefined) throw new Error(`bare loop: no row for ${key}`)
    const saved = JSON.parse(raw) as { state: BenchState; seq: number }
    return this.#steps(key, { ...saved.state, approved: true }, saved.seq, STEP_NAMES.length)
  }

  /** The row a run left, parsed; for the pre-measurement check. */
  async saved(key: string): Promise<unknown> {
    const { rows } = await this.pool.query<{ value: string }>({ ...SELECT, values: [NS, key] })
    return rows[0] ? JSON.parse(rows[0].value) : undefined
  }

  async #steps(key: string, input: BenchState, from: number, to: number): Promise<BenchState> {
    let state = input
    for (let i = from; i < to; i++) {
      state = { ...state, ...(await STEPS[i]!(state)) }
      const value = JSON.stringify({ state, step: STEP_NAMES[i], seq: i + 1 })
      await this.pool.query({ ...UPSERT, values: [NS, key, value] })
    }
    return state
  }
}
