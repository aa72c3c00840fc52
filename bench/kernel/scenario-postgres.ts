import type pg from 'pg'
import { BarePg } from './bare.js'
import { truncateAll } from './db.js'
import { GRAPH_NAME, kernelPg } from './kernel.js'
import { langgraphPg } from './langgraph.js'
import { fmt, judge, mdTable, spread, type ScenarioReport, type Verdict } from './report.js'
import type { Settings } from './settings.js'
import { assertFinished, initialState, STEP_NAMES } from './state.js'
import { median, pairedRatios } from './stats.js'
import { concurrentSlice, perSecond, rotate, serialSlice, type Op } from './timing.js'

interface Contender {
  name: string
  op: Op
  /** Runs once under `id` and throws unless the expected rows were written. */
  check: (id: string) => Promise<void>
}

type Mode = 'serial' | 'concurrent'

const BARE = 'bare loop (1 upsert/step)'
const K_OFF = 'kernel + PgStore, history off'
const K_ON = 'kernel + PgStore, history on'
const LG_SYNC = 'LangGraph + PostgresSaver (durability "sync")'
const LG_ASYNC = 'LangGraph + PostgresSaver (durability "async", default)'

/**
 * (b) Runs per second with a Postgres checkpoint after every step, one run at a time and
 * `workers` at once, contenders interleaved in rounds (order rotated, tables emptied before each
 * slice); every figure is the median of the per-round throughputs.
 */
export async function scenarioPostgres(
  s: Settings,
  pool: pg.Pool,
  log: (line: string) => void,
): Promise<ScenarioReport> {
  const input = initialState()
  const bare = new BarePg(pool)
  const kOff = kernelPg(pool, false)
  const kOn = kernelPg(pool, true)
  const lgSync = langgraphPg(pool, 'sync')
  const lgAsync = langgraphPg(pool, 'async')
  const rowsOf = async (table: string): Promise<number> =>
    Number((await pool.query<{ n: string }>(`SELECT count(*) AS n FROM ${table}`)).rows[0]!.n)
  const expectRows = async (name: string, table: string, n: number): Promise<void> => {
    const found = await rowsOf(table)
    if (found !== n) throw new Error(`${name}: expected ${n} rows in ${table}, found ${found}`)
  }

  // The bare loop sits between the two kernel variants, so the slices compared are close in time.
  const contenders: Contender[] = [
    {
      name: K_OFF,
      op: () => kOff(input),
      check: async (id) => {
        assertFinished(K_OFF, (await kOff(input, id)).state)
        await expectRows(K_OFF, 'weave_kv', 1)
        await expectLatest(pool, id)
      },
    },
    {
      name: BARE,
      op: () => bare.run(input),
      check: async (id) => {
        assertFinished(BARE, await bare.run(input, id))
        const saved = (await bare.saved(id)) as { seq?: number } | undefined
        if (saved?.seq !== STEP_NAMES.length) throw new Error(`${BARE}: row not at seq 5`)
      },
    },
    {
      name: K_ON,
      op: () => kOn(input),
      check: async (id) => {
        assertFinished(K_ON, (await kOn(input, id)).state)
        await expectRows(K_ON, 'weave_kv', 1 + STEP_NAMES.length)
        await expectLatest(pool, id)
      },
    },
    {
      name: LG_SYNC,
      op: () => lgSync(input),
      check: async (id) => {
        assertFinished(LG_SYNC, await lgSync(input, id))
        if ((await rowsOf('checkpoints')) < STEP_NAMES.length)
          throw new Error(`${LG_SYNC}: fewer checkpoints than steps`)
      },
    },
    {
      name: LG_ASYNC,
      op: () => lgAsync(input),
      check: async (id) => {
        assertFinished(LG_ASYNC, await lgAsync(input, id))
      },
    },
  ]

  for (const c of contenders) {
    await truncateAll(pool)
    await c.check(globalThis.crypto.randomUUID())
  }
  const slice = (c: Contender, mode: Mode, ms: number) =>
    mode === 'serial' ? serialSlice(c.op, ms) : concurrentSlice(c.op, ms, s.workers)
  for (const c of contenders) {
    for (const mode of ['serial', 'concurrent'] as const) {
      await truncateAll(pool)
      await slice(c, mode, s.warmupMs)
    }
  }

  const rps = new Map<string, number[]>()
  const series = (mode: Mode, name: string): number[] => {
    const key = `${mode}:${name}`
    if (!rps.has(key)) rps.set(key, [])
    return rps.get(key)!
  }
  for (let round = 0; round < s.reps; round++) {
    for (const mode of ['serial', 'concurrent'] as const) {
      for (const c of rotate(contenders, round)) {
        await truncateAll(pool)
        series(mode, c.name).push(perSecond(await slice(c, mode, s.sliceMs.b)))
      }
    }
    log(
      `(b) round ${round + 1}/${s.reps}: ${contenders.map((c) => `${c.name} ${fmt(series('serial', c.name).at(-1)!)}/${fmt(series('concurrent', c.name).at(-1)!)} runs/s`).join('; ')}`,
    )
  }

  const verdicts: Verdict[] = []
  const ratioRows: string[][] = []
  for (const mode of ['serial', 'concurrent'] as const) {
    const how = mode === 'serial' ? 'one at a time' : `${s.workers} at once`
    const b = series(mode, BARE)
    verdicts.push(
      judge({
        label: `(b) Postgres, history off, ${how}: ≥ 0.8× the bare loop's runs/s`,
        ratioOf: 'kernel / bare runs/s',
        ratios: pairedRatios(series(mode, K_OFF), b),
        limit: 0.8,
        kind: 'at-least',
      }),
      judge({
        label: `(b) Postgres, history on, ${how}: ≥ 0.7× the bare loop's runs/s`,
        ratioOf: 'kernel / bare runs/s',
        ratios: pairedRatios(series(mode, K_ON), b),
        limit: 0.7,
        kind: 'at-least',
      }),
    )
    ratioRows.push([
      `kernel (history off) / LangGraph sync, ${how}`,
      fmt(median(pairedRatios(series(mode, K_OFF), series(mode, LG_SYNC)))),
    ])
  }

  const markdown = [
    `### (b) Postgres checkpoint after every step: runs per second (median of ${s.reps} rounds, min–max)`,
    '',
    mdTable(
      ['contender', 'one at a time', `${s.workers} at once`],
      [BARE, K_OFF, K_ON, LG_SYNC, LG_ASYNC].map((name) => [
        name,
        spread(series('serial', name)),
        spread(series('concurrent', name)),
      ]),
    ),
    '',
    mdTable(['ratio', 'median of per-round ratios'], ratioRows),
  ].join('\n')
  return { markdown, verdicts }
}

// PgStore stores namespace `checkpoint:bench` as "0:checkpoint:bench" (empty prefix).
async function expectLatest(pool: pg.Pool, runId: string): Promise<void> {
  const { rows } = await pool.query<{ value: string }>(
    'SELECT value FROM weave_kv WHERE ns = $1 AND key = $2',
    [`0:checkpoint:${GRAPH_NAME}`, runId],
  )
  const cp = rows[0] ? (JSON.parse(rows[0].value) as { seq?: number; status?: string }) : undefined
  if (cp?.seq !== STEP_NAMES.length || cp.status !== 'step_done') {
    throw new Error(`kernel: the latest checkpoint of ${runId} is not step 5's`)
  }
}
