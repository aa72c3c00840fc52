import type { Router, Step } from '@weave/kernel'
import type { ExpressionLimits } from '../expression.js'
import { compileRouter } from '../routing.js'
import type { StepSpec } from '../step-schema.js'
import { compileAgentRouter, compileAgentStep } from './agent.js'
import { compileApprovalStep } from './approval.js'
import { compileFailStep } from './fail.js'
import { compileHandlerStep } from './handler.js'
import { compileHttpStep } from './http.js'
import { compileInputStep } from './input.js'
import { compileLlmStep } from './llm.js'
import { compileParallelStep } from './parallel.js'
import { compileSetStep } from './set.js'
import type { StepCompileContext } from './step-compiler.js'
import { compileSubgraphStep } from './subgraph.js'
import { compileWaitStep } from './wait.js'

/** The kernel step of one spec step, by kind. */
export async function compileStep(
  name: string,
  step: StepSpec,
  cx: StepCompileContext,
): Promise<Step> {
  const path = `/steps/${name}`
  switch (step.kind) {
    case 'set':
      return compileSetStep(step, cx)
    case 'approval':
      return compileApprovalStep(name, step, cx)
    case 'input':
      return compileInputStep(step, cx)
    case 'http':
      return compileHttpStep(name, step, cx)
    case 'llm':
      return compileLlmStep(name, step, cx)
    case 'wait':
      return compileWaitStep(name, step, cx)
    case 'subgraph':
      return compileSubgraphStep(path, step, cx)
    case 'parallel':
      return compileParallelStep(path, step, cx)
    case 'handler':
      return compileHandlerStep(step, cx)
    case 'fail':
      return compileFailStep(step, cx)
    case 'agent':
      return compileAgentStep(name, step, cx)
  }
}

/**
 * The kernel router of one spec step: its `next`, except that an agent step comes back to
 * itself until its conversation is done.
 */
export function compileStepRouter(
  name: string,
  step: StepSpec,
  limits: ExpressionLimits,
): Router | undefined {
  if (step.kind === 'agent') return compileAgentRouter(name, step, limits)
  return compileRouter(step.next, limits)
}
