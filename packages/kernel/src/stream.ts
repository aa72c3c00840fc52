import {
  runLoop,
  type Emit,
  type Invocation,
  type LoopGraph,
  type RunResult,
  type StepEvent,
} from './run-loop.js'

type Handoff = { event: StepEvent & { type: 'step' } } | { result: RunResult } | { error: unknown }

/**
 * Turns the loop into a pull stream: the loop pauses after emitting each step event until the
 * consumer asks for the next one, so a step starts only on demand; a consumer that leaves stops
 * the run there (stream.test.ts). Misuse errors surface from the first `next()`.
 */
export function streamLoop(
  loopGraph: () => LoopGraph,
  start: () => Invocation,
): AsyncIterable<StepEvent> {
  return {
    async *[Symbol.asyncIterator]() {
      const graph = loopGraph()
      const inv = start()
      let deliver!: (h: Handoff) => void
      let pending = new Promise<Handoff>((r) => (deliver = r))
      let proceed: ((go: boolean) => void) | undefined
      const emit: Emit = (event) =>
        new Promise<boolean>((go) => {
          proceed = go
          const send = deliver
          pending = new Promise<Handoff>((r) => (deliver = r))
          send({ event })
        })
      const loop = runLoop(graph, inv, emit).then(
        (result) => deliver({ result }),
        (error: unknown) => deliver({ error }),
      )
      let done = false
      try {
        for (;;) {
          const h = await pending
          if ('error' in h) throw h.error
          if ('result' in h) {
            done = true
            yield { type: 'result', result: h.result }
            return
          }
          yield h.event
          const go = proceed!
          proceed = undefined
          go(true)
        }
      } finally {
        if (!done) {
          proceed?.(false)
          await loop
        }
      }
    },
  }
}
