import { bareRun } from './bare.js'
import { kernelMemory } from './kernel.js'
import { langgraphMemory } from './langgraph.js'
import { fmt, judge, mdTable, spread, type ScenarioReport } from './report.js'
import type { Settings } from './settings.js'
import { assertFinished, initialState, STEP_NAMES } from './state.js'
import { median, pairedRatios } from './stats.js'
import { rotate, serialSlice, type Op } from './timing.js'

interface Contender {
  name: string
  op: Op
}

// Runs between clock reads: sixteen 5-step runs take ~100 µs bare and ~70 ms in LangGraph.
const BATCH = 16

/**
 * (a) Per-step time in memory, no store: N runs of the 5-step graph back to back, per step =
 * wall time / (N × 5). The steps do nothing, so this is each contender's per-step overhead.
 */
export async function scenarioMemory(
  s: Settings,
  log: (line: string) => void,
): Promise<ScenarioReport> {
  // One input for every run: no contender modifies it, and building it is nobody's overhead.
  const input = initialState()
  const kernel = kernelMemory()
  const langgraph = langgraphMemory()
  const contenders: Contender[] = [
    { name: 'kernel', op: () => kernel(input) },
    { name: 'bare loop', op: () => bareRun(input) },
    { name: 'LangGraph StateGraph', op: () => langgraph(input) },
  ]
  assertFinished('bare loop', await bareRun(input))
  assertFinished('kernel', (await kernel(input)).state)
  assertFinished('langgraph', await langgraph(input))

  for (const c of contenders) await serialSlice(c.op, s.warmupMs, BATCH)
  const perStep = new Map<string, number[]>(contenders.map((c) => [c.name, []]))
  for (let round = 0; round < s.reps; round++) {
    for (const c of rotate(contenders, round)) {
      const slice = await serialSlice(c.op, s.sliceMs.a, BATCH)
      perStep.get(c.name)!.push((slice.ms * 1000) / (slice.ops * STEP_NAMES.length))
    }
    log(
      `(a) round ${round + 1}/${s.reps}: ${contenders.map((c) => `${c.name} ${fmt(perStep.get(c.name)!.at(-1)!)} µs/step`).join(', ')}`,
    )
  }

  const bare = perStep.get('bare loop')!
  const k = perStep.get('kernel')!
  const lg = perStep.get('LangGraph StateGraph')!
  const verdict = judge({
    label: '(a) in memory: kernel per-step overhead within 3× of the bare loop',
    ratioOf: 'kernel / bare µs per step',
    ratios: pairedRatios(k, bare),
    limit: 3,
    kind: 'at-most',
  })
  const markdown = [
    `### (a) In memory, no store: µs per step (median of ${s.reps} rounds, min–max)`,
    '',
    mdTable(
      ['contender', 'µs / step'],
      ['bare loop', 'kernel', 'LangGraph StateGraph'].map((name) => [
        name,
        spread(perStep.get(name)!),
      ]),
    ),
    '',
    mdTable(
      ['ratio', 'median of per-round ratios'],
      [
        ['kernel / bare loop', fmt(median(pairedRatios(k, bare)))],
        ['LangGraph / kernel', fmt(median(pairedRatios(lg, k)))],
      ],
    ),
  ].join('\n')
  return { markdown, verdicts: [verdict] }
}
