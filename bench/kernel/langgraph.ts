import { Annotation, Command, END, interrupt, START, StateGraph } from '@langchain/langgraph'
import type { BaseCheckpointSaver } from '@langchain/langgraph'
import { PostgresSaver } from '@langchain/langgraph-checkpoint-postgres'
import type pg from 'pg'
import { assertFinished, STEPS, type BenchState, type JsonValue } from './state.js'

// One channel per state key; Annotation<T>() keeps the last value written, like an overwrite merge.
const BenchAnnotation = Annotation.Root({
  request: Annotation<JsonValue>(),
  document: Annotation<JsonValue>(),
  messages: Annotation<JsonValue>(),
  result1: Annotation<JsonValue>(),
  result2: Annotation<JsonValue>(),
  result3: Annotation<JsonValue>(),
  result4: Annotation<JsonValue>(),
  result5: Annotation<JsonValue>(),
  approved: Annotation<JsonValue>(),
})
type LgState = typeof BenchAnnotation.State
type LgUpdate = typeof BenchAnnotation.Update
type LgNode = (state: LgState) => Promise<LgUpdate>

/** When LangGraph writes a step's checkpoint: before the next step starts, or alongside it. */
export type Durability = 'sync' | 'async'

const node =
  (i: number): LgNode =>
  (state) =>
    STEPS[i]!(state)

// Pauses on the first pass; on resume interrupt() returns the Command's value and the node goes on.
const approvalNode: LgNode = async (state) => {
  const approved = interrupt<string, boolean>('approve step 3?')
  return { ...(await STEPS[2]!(state)), approved }
}

function compile(checkpointer?: BaseCheckpointSaver, stepThree: LgNode = node(2)) {
  return new StateGraph(BenchAnnotation)
    .addNode('step1', node(0))
    .addNode('step2', node(1))
    .addNode('step3', stepThree)
    .addNode('step4', node(3))
    .addNode('step5', node(4))
    .addEdge(START, 'step1')
    .addEdge('step1', 'step2')
    .addEdge('step2', 'step3')
    .addEdge('step3', 'step4')
    .addEdge('step4', 'step5')
    .addEdge('step5', END)
    .compile(checkpointer ? { checkpointer } : {})
}

/** Runs the StateGraph in memory: no checkpointer. */
export function langgraphMemory(): (input: BenchState) => Promise<unknown> {
  const graph = compile()
  return (input) => graph.invoke(input)
}

/** Runs the StateGraph with a PostgresSaver, a fresh thread per run. */
export function langgraphPg(
  pool: pg.Pool,
  durability: Durability,
): (input: BenchState, threadId?: string) => Promise<unknown> {
  const graph = compile(new PostgresSaver(pool))
  return (input, threadId = globalThis.crypto.randomUUID()) =>
    graph.invoke(input, { configurable: { thread_id: threadId }, durability })
}

/**
 * A pause/resume cycle: interrupt() in step 3, then a Command resuming the thread on a freshly
 * compiled graph with a new PostgresSaver over the same pool.
 * @throws Error when the first invoke did not stop at the interrupt
 */
export async function langgraphCycle(pool: pg.Pool, input: BenchState): Promise<unknown> {
  const config = {
    configurable: { thread_id: globalThis.crypto.randomUUID() },
    durability: 'sync',
  } as const
  const first = compile(new PostgresSaver(pool), approvalNode)
  const paused = await first.invoke(input, config)
  if (!('__interrupt__' in paused)) throw new Error('langgraph: step 3 did not interrupt')
  const second = compile(new PostgresSaver(pool), approvalNode)
  const done = await second.invoke(new Command({ resume: true }), config)
  assertFinished('langgraph cycle', done)
  return done
}
