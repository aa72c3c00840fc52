import type pg from 'pg'
import { BarePg } from './bare.js'
import { truncateAll } from './db.js'
import { kernelCycle } from './kernel.js'
import { langgraphCycle } from './langgraph.js'
import { fmt, judge, mdTable, spread, type ScenarioReport } from './report.js'
import type { Settings } from './settings.js'
import { assertFinished, initialState } from './state.js'
import { median, pairedRatios } from './stats.js'
import { rotate, serialSlice, type Op } from './timing.js'

interface Contender {
  name: string
  op: Op
}

const BARE = 'bare loop'
const KERNEL = 'kernel + PgStore'
const LANGGRAPH = 'LangGraph + PostgresSaver'

/**
 * (c) Milliseconds per pause/resume cycle (start, yield at step 3, resume from a freshly built
 * graph and store, finish), one cycle at a time, contenders interleaved in rounds.
 */
export async function scenarioPause(
  s: Settings,
  pool: pg.Pool,
  log: (line: string) => void,
): Promise<ScenarioReport> {
  const input = initialState()
  const bare = new BarePg(pool)
  const contenders: Contender[] = [
    { name: KERNEL, op: () => kernelCycle(pool, input) },
    { name: BARE, op: () => bare.cycle(input) },
    { name: LANGGRAPH, op: () => langgraphCycle(pool, input) },
  ]
  await truncateAll(pool)
  assertFinished(BARE, await bare.cycle(input))
  const k = await kernelCycle(pool, input)
  assertFinished(KERNEL, k.state)
  if (k.state.approved !== true) throw new Error(`${KERNEL}: resume input was not merged`)
  await langgraphCycle(pool, input)

  for (const c of contenders) {
    await truncateAll(pool)
    await serialSlice(c.op, s.warmupMs)
  }
  const msPerCycle = new Map<string, number[]>(contenders.map((c) => [c.name, []]))
  for (let round = 0; round < s.reps; round++) {
    for (const c of rotate(contenders, round)) {
      await truncateAll(pool)
      const slice = await serialSlice(c.op, s.sliceMs.c)
      msPerCycle.get(c.name)!.push(slice.ms / slice.ops)
    }
    log(
      `(c) round ${round + 1}/${s.reps}: ${contenders.map((c) => `${c.name} ${fmt(msPerCycle.get(c.name)!.at(-1)!)} ms`).join(', ')}`,
    )
  }

  const b = msPerCycle.get(BARE)!
  const kc = msPerCycle.get(KERNEL)!
  const lg = msPerCycle.get(LANGGRAPH)!
  const verdict = judge({
    label: "(c) pause/resume cycle within 2× of the bare loop's",
    ratioOf: 'kernel / bare ms per cycle',
    ratios: pairedRatios(kc, b),
    limit: 2,
    kind: 'at-most',
  })
  const markdown = [
    `### (c) Pause/resume cycle: ms per cycle (median of ${s.reps} rounds, min–max)`,
    '',
    mdTable(
      ['contender', 'ms / cycle'],
      [BARE, KERNEL, LANGGRAPH].map((name) => [name, spread(msPerCycle.get(name)!)]),
    ),
    '',
    mdTable(
      ['ratio', 'median of per-round ratios'],
      [
        ['kernel / bare loop', fmt(median(pairedRatios(kc, b)))],
        ['LangGraph / kernel', fmt(median(pairedRatios(lg, kc)))],
      ],
    ),
  ].join('\n')
  return { markdown, verdicts: [verdict] }
}
