import type { Json, Step } from '@weave/kernel'
import { LlmStepError } from '../errors.js'
import type { LlmStepSpec } from '../step-schema.js'
import { compileTemplate } from '../template.js'
import { requestChatCompletion } from './chat-completions.js'
import type { StepCompileContext } from './step-compiler.js'

type LlmFields = Omit<LlmStepSpec, 'kind' | 'next'>

/**
 * `llm`: one chat completion (`POST ${baseUrl}/chat/completions`, system and user messages,
 * `response_format: json_object` when `json`), retried on network errors, 5xx and 429; saves
 * `{ content, usage }` under `saveAs` (default: the step name), content parsed when `json`.
 */
export function compileLlmStep(name: string, step: LlmFields, cx: StepCompileContext): Step {
  const system = step.system === undefined ? undefined : compileTemplate(step.system, cx.limits)
  const prompt = compileTemplate(step.prompt, cx.limits)
  const saveAs = step.saveAs ?? name
  return async (state, ctx) => {
    if (!cx.deps.llm) throw new LlmStepError(ctx.step, 'no LLM endpoint is configured')
    const messages = [
      ...(system === undefined
        ? []
        : [{ role: 'system', content: await system.render(state, ctx.step) }]),
      { role: 'user', content: await prompt.render(state, ctx.step) },
    ]
    const request = {
      model: step.model,
      messages,
      ...(step.json === true ? { response_format: { type: 'json_object' } } : {}),
    }
    const answer = await requestChatCompletion(cx.deps.llm, request, ctx)
    if (typeof answer.message.content !== 'string') {
      throw new LlmStepError(ctx.step, 'the endpoint gave no completion message')
    }
    let content: Json = answer.message.content
    if (step.json === true) {
      try {
        content = JSON.parse(answer.message.content) as Json
      } catch (err) {
        throw new LlmStepError(ctx.step, 'the completion is not valid JSON', { cause: err })
      }
    }
    return { [saveAs]: { content, usage: answer.usage } }
  }
}
