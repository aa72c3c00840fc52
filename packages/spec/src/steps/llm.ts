import type { Json, Step } from '@weave/kernel'
import { LlmStepError } from '../errors.js'
import { isJsonObject } from '../json-value.js'
import { RequestFailedError, sendWithRetry } from '../http/request.js'
import type { LlmStepSpec } from '../step-schema.js'
import { compileTemplate } from '../template.js'
import type { StepCompileContext } from './step-compiler.js'

const MAX_BODY_BYTES = 4 * 1_048_576

type LlmFields = Omit<LlmStepSpec, 'kind' | 'next'>

function errorDetail(text: string): string {
  try {
    const body = JSON.parse(text) as Json
    if (isJsonObject(body) && isJsonObject(body.error) && typeof body.error.message === 'string') {
      return `: ${body.error.message.slice(0, 300)}`
    }
  } catch {
    // not JSON: the status alone is the detail
  }
  return ''
}

function contentOf(text: string): { content: string; usage: Json } | undefined {
  let body: Json
  try {
    body = JSON.parse(text) as Json
  } catch {
    return undefined
  }
  if (!isJsonObject(body) || !Array.isArray(body.choices)) return undefined
  const first = body.choices[0]
  if (!isJsonObject(first) || !isJsonObject(first.message)) return undefined
  const content = first.message.content
  if (typeof content !== 'string') return undefined
  return { content, usage: body.usage ?? null }
}

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
    const llm = cx.deps.llm
    if (!llm) throw new LlmStepError(ctx.step, 'no LLM endpoint is configured')
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
    const headers: Record<string, string> = { 'content-type': 'application/json' }
    if (llm.apiKey !== undefined) headers.authorization = `Bearer ${llm.apiKey}`
    let res
    try {
      res = await sendWithRetry({
        fetch: llm.fetch ?? fetch,
        url: `${llm.baseUrl.replace(/\/+$/, '')}/chat/completions`,
        method: 'POST',
        headers,
        body: JSON.stringify(request),
        attempts: llm.attempts ?? 3,
        backoffMs: llm.backoffMs ?? 1000,
        timeoutMs: llm.timeoutMs ?? 60_000,
        signal: ctx.signal,
        maxBodyBytes: MAX_BODY_BYTES,
        retryStatus: () => true,
      })
    } catch (err) {
      const detail = err instanceof RequestFailedError ? err.message : String(err)
      throw new LlmStepError(ctx.step, `the completion request failed: ${detail}`, { cause: err })
    }
    if (res.status < 200 || res.status > 299) {
      throw new LlmStepError(
        ctx.step,
        `the endpoint answered ${res.status}${errorDetail(res.text)}`,
      )
    }
    const answer = contentOf(res.text)
    if (!answer) throw new LlmStepError(ctx.step, 'the endpoint gave no completion message')
    let content: Json = answer.content
    if (step.json === true) {
      try {
        content = JSON.parse(answer.content) as Json
      } catch (err) {
        throw new LlmStepError(ctx.step, 'the completion is not valid JSON', { cause: err })
      }
    }
    return { [saveAs]: { content, usage: answer.usage } }
  }
}
