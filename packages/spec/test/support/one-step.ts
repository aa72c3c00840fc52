import { MemStore, type State } from '@weave/kernel'
import { compileGraph, GraphSpec, type CompileDeps } from '@weave/spec'

/** Compiles a graph of one step named `step` and runs it once. */
export async function runOneStep(
  step: Record<string, unknown>,
  deps: CompileDeps = {},
  input: State = {},
  options: { signal?: AbortSignal } = {},
) {
  const spec = GraphSpec.parse({ entry: 'step', steps: { step } })
  const { graph } = await compileGraph('one', spec, deps)
  const store = new MemStore()
  return graph.run(input, { store, ...options })
}
