import type { Json } from '@weave/kernel'
import type { LlmDeps } from '../compile-deps.js'
import { LlmStepError } from '../errors.js'
import { RequestFailedError, sendWithRetry } from '../http/request.js'
import { isJsonObject } from '../json-value.js'

const MAX_BODY_BYTES = 4 * 1_048_576

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

/**
 * One chat completion against the OpenAI-compatible endpoint (`POST ${baseUrl}/chat/completions`),
 * retried on network errors, 5xx and 429; what the llm and agent steps share. Resolves with the
 * first choice's message and the answer's `usage` (null when absent).
 * @throws LlmStepError when no endpoint is configured, the request fails, the endpoint answers
 *   anything but 2xx, or the answer has no message.
 */
export async function requestChatCompletion(
  llm: LlmDeps | undefined,
  request: Record<string, unknown>,
  ctx: { step: string; signal: AbortSignal },
): Promise<{ message: { [k: string]: Json }; usage: Json }> {
  if (!llm) throw new LlmStepError(ctx.step, 'no LLM endpoint is configured')
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
    throw new LlmStepError(ctx.step, `the endpoint answered ${res.status}${errorDetail(res.text)}`)
  }
  const answer = firstMessage(res.text)
  if (!answer) throw new LlmStepError(ctx.step, 'the endpoint gave no completion message')
  return answer
}

function firstMessage(text: string): { message: { [k: string]: Json }; usage: Json } | undefined {
  let body: Json
  try {
    body = JSON.parse(text) as Json
  } catch {
    return undefined
  }
  if (!isJsonObject(body) || !Array.isArray(body.choices)) return undefined
  const first = body.choices[0]
  if (!isJsonObject(first) || !isJsonObject(first.message)) return undefined
  return { message: first.message, usage: body.usage ?? null }
}
