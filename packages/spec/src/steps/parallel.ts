import { parallel, type Json, type Step } from '@weave/kernel'
import type { BranchStepSpec, ParallelStepSpec } from '../step-schema.js'
import { compileHandlerStep } from './handler.js'
import { compileHttpStep } from './http.js'
import { compileLlmStep } from './llm.js'
import { compileSetStep } from './set.js'
import type { StepCompileContext } from './step-compiler.js'
import { compileSubgraphStep } from './subgraph.js'

async function compileBranch(
  branch: string,
  step: BranchStepSpec,
  path: string,
  cx: StepCompileContext,
): Promise<Step> {
  switch (step.kind) {
    case 'set':
      return compileSetStep(step, cx)
    case 'http':
      return compileHttpStep(branch, step, cx)
    case 'llm':
      return compileLlmStep(branch, step, cx)
    case 'handler':
      return compileHandlerStep(step, cx)
    case 'subgraph':
      return compileSubgraphStep(path, step, cx)
  }
}

/**
 * `parallel`: the kernel runs the branches concurrently (the first failure aborts the others);
 * their deltas are united, or saved as `{ [saveAs]: { branch: delta } }`. A branch's `saveAs`
 * defaults to the branch name.
 */
export async function compileParallelStep(
  path: string,
  step: ParallelStepSpec,
  cx: StepCompileContext,
): Promise<Step> {
  const branches: Record<string, Step> = {}
  for (const [branch, s] of Object.entries(step.branches)) {
    branches[branch] = await compileBranch(branch, s, `${path}/branches/${branch}`, cx)
  }
  const saveAs = step.saveAs
  if (saveAs === undefined) return parallel(branches)
  return parallel(branches, (deltas) => ({ [saveAs]: deltas as Record<string, Json> }))
}
