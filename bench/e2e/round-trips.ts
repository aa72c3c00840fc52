import pg from 'pg'
import { fmt, mdTable } from '../kernel/report.js'
import { median } from '../kernel/stats.js'
import type { ApiClient, RunView } from './api-client.js'
import { withDatabase } from './weave-processes.js'
import { LINEAR_GRAPH, runInput } from './workload.js'

/** Top-level statements (BEGIN and COMMIT included) one operation sent to Postgres. */
export interface RoundTrips {
  /**
   * Per run started over the API and completed (its polling GETs excluded): of `WINDOWS`
   * windows of `RUNS` runs each, the one with the median count.
   */
  perRun: number
  /** Per `GET /v1/runs/{id}`: the median of `WINDOWS` windows of `GETS` GETs each. */
  perGet: number
  /**
   * Taken off `perRun`: statements that were also sent while nothing ran, over as long a window
   * (background), each statement at most as often as the runs' window sent it.
   */
  backgroundPerRun: number
  /** Statements of the median runs' window by normalised text, calls per run, most first. */
  byStatement: [string, number][]
}

const RUNS = 5
const GETS = 20
// Background work (a maintenance sweep such as the reconciler's, every 30 s) that fires during
// one window of runs or of GETs would be counted as theirs; the median of three windows of each
// leaves it out, as the windows together last far less than the sweep's period.
const WINDOWS = 3
// The benchmark's own probe of a run's status, left out of the counts by this column alias
// (pg_stat_statements keeps names and replaces constants).
const PROBE = 'bench_e2e_probe'

/**
 * Counts with pg_stat_statements (top-level statements per database) what `RUNS` runs of the
 * linear graph cost, one at a time, each started with `POST /v1/runs` and seen completed by a
 * probe of the runs table (not by GETs, which are counted on their own), in `WINDOWS`
 * windows, and keeps the window with the median count. Statements sent while no run is in
 * flight, over a window as long, are counted too and subtracted statement by statement: a
 * statement only the quiet window sent (a maintenance job that happened to fire then) takes
 * nothing off the runs' count.
 */
export async function countRoundTrips(
  serverUrl: string,
  database: string,
  api: ApiClient,
): Promise<RoundTrips> {
  const admin = new pg.Client({ connectionString: serverUrl })
  const probe = new pg.Client({ connectionString: withDatabase(serverUrl, database) })
  await Promise.all([admin.connect(), probe.connect()])
  try {
    const reset = async (): Promise<void> => {
      await admin.query('SELECT pg_stat_statements_reset()')
    }
    const read = async (): Promise<Map<string, number>> => {
      const { rows } = await admin.query<{ query: string; calls: string }>(
        `SELECT s.query, s.calls FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid
          WHERE d.datname = $1 AND s.query NOT LIKE '%' || $2 || '%'`,
        [database, PROBE],
      )
      const calls = new Map<string, number>()
      for (const r of rows) {
        const text = r.query.replace(/\s+/g, ' ').trim()
        calls.set(text, (calls.get(text) ?? 0) + Number(r.calls))
      }
      return calls
    }
    const total = (m: Map<string, number>): number => [...m.values()].reduce((a, b) => a + b, 0)

    // One run first, so caches (graphs, prepared statements, pools) are warm as in a phase.
    const start = async (): Promise<string> =>
      (await api.call<RunView>('POST', '/v1/runs', 202, { graph: LINEAR_GRAPH, input: runInput() }))
        .id
    const waitCompleted = async (id: string): Promise<void> => {
      const deadline = Date.now() + 60_000
      for (;;) {
        const { rows } = await probe.query<Record<string, string>>(
          `SELECT status AS ${PROBE} FROM runs WHERE id = $1`,
          [id],
        )
        if (rows[0]?.[PROBE] === 'completed') return
        if (Date.now() > deadline) throw new Error(`run ${id} did not complete in 60 s`)
        await new Promise((r) => setTimeout(r, 5))
      }
    }
    const warm = await start()
    await waitCompleted(warm)
    await api.call('GET', `/v1/runs/${warm}`, 200)

    const runWindows: { calls: Map<string, number>; ms: number }[] = []
    for (let w = 0; w < WINDOWS; w++) {
      await reset()
      const began = performance.now()
      for (let i = 0; i < RUNS; i++) await waitCompleted(await start())
      // Let the last run's after-commit work (if any) reach Postgres before reading.
      await new Promise((r) => setTimeout(r, 200))
      runWindows.push({ calls: await read(), ms: performance.now() - began })
    }
    runWindows.sort((a, b) => total(a.calls) - total(b.calls))
    const { calls: runCalls, ms: windowMs } = runWindows[Math.floor(WINDOWS / 2)]!

    await reset()
    await new Promise((r) => setTimeout(r, windowMs))
    const idle = await read()

    const getCalls: number[] = []
    for (let w = 0; w < WINDOWS; w++) {
      await reset()
      for (let i = 0; i < GETS; i++) await api.call('GET', `/v1/runs/${warm}`, 200)
      getCalls.push(total(await read()))
    }

    const byStatement = [...runCalls.entries()]
      .map(([q, c]): [string, number] => [q, c / RUNS])
      .sort((a, b) => b[1] - a[1])
    let background = 0
    for (const [q, calls] of runCalls) background += Math.min(calls, idle.get(q) ?? 0)
    return {
      perRun: (total(runCalls) - background) / RUNS,
      perGet: median(getCalls) / GETS,
      backgroundPerRun: background / RUNS,
      byStatement,
    }
  } finally {
    await Promise.allSettled([admin.end(), probe.end()])
  }
}

/** The statements of one run, for the report: calls per run and the statement's start. */
export function statementTable(label: string, r: RoundTrips, limit = 25): string {
  return [
    `${label}: statements per run (pg_stat_statements, top level, the median of ${WINDOWS} windows of ${RUNS} runs one at a time; background not subtracted here):`,
    '',
    mdTable(
      ['calls per run', 'statement'],
      r.byStatement
        .slice(0, limit)
        .map(([q, c]) => [
          fmt(c),
          `\`${q.slice(0, 110).replace(/\|/g, '\\|').replace(/`/g, "'")}\``,
        ]),
    ),
  ].join('\n')
}
