import type { Step } from '@weave/kernel'
import { HttpStepError } from '../errors.js'
import { compileExpression } from '../expression.js'
import { RequestFailedError, sendWithRetry } from '../http/request.js'
import type { HttpStepSpec } from '../step-schema.js'
import { compileTemplate } from '../template.js'
import { allowedTarget, parseResponseBody } from './http-target.js'
import type { StepCompileContext } from './step-compiler.js'

const MAX_BODY_BYTES = 1_048_576
const DEFAULT_TIMEOUT_MS = 10_000
const DEFAULT_BACKOFF_MS = 500

type HttpFields = Omit<HttpStepSpec, 'kind' | 'next'>

function expectation(expect: HttpFields['expectStatus']) {
  if (expect === undefined) return { test: (s: number) => s >= 200 && s <= 299, text: '2xx' }
  const list = Array.isArray(expect) ? expect : [expect]
  return { test: (s: number) => list.includes(s), text: list.join(', ') }
}

// Query strings often carry tokens: messages name the origin and path only.
function describe(url: URL): string {
  return `${url.origin}${url.pathname}`
}

/**
 * `http`: renders the URL and headers, checks egress, sends the JSON body with an
 * `Idempotency-Key` of `<runId>:<step>:<seq>` (stable across crash-recovery re-runs of the same
 * step; the host's `idempotencyKey` keeps it stable across retries of a failed step too), retries network errors, 5xx and 429 (unless expected), follows no redirect, and saves
 * `{ status, headers, body }` under `saveAs` (default: the step name).
 */
export function compileHttpStep(name: string, step: HttpFields, cx: StepCompileContext): Step {
  const url = compileTemplate(step.url, cx.limits)
  const headers = Object.entries(step.headers ?? {}).map(
    ([key, template]) => [key.toLowerCase(), compileTemplate(template, cx.limits)] as const,
  )
  const body = step.body === undefined ? undefined : compileExpression(step.body, cx.limits)
  const expected = expectation(step.expectStatus)
  const saveAs = step.saveAs ?? name
  // An injected fetch replaces the transport (tests); otherwise each call uses the fetch the
  // egress decision pinned to the addresses it checked.
  const injectedFetch = cx.deps.http?.fetch
  const timeoutMs = step.timeoutMs ?? cx.deps.http?.defaultTimeoutMs ?? DEFAULT_TIMEOUT_MS
  const idempotencyKey =
    cx.deps.http?.idempotencyKey ??
    ((call: { runId: string; step: string; seq: number }) =>
      `${call.runId}:${call.step}:${call.seq}`)
  return async (state, ctx) => {
    const rendered = await url.render(state, ctx.step)
    const { target, decision } = await allowedTarget(rendered, ctx.step, cx.egress)
    const sent: Record<string, string> = {
      'idempotency-key': idempotencyKey({ runId: ctx.runId, step: ctx.step, seq: ctx.seq }),
    }
    for (const [key, template] of headers) {
      const value = await template.render(state, ctx.step)
      if (/[\r\n\0]/.test(value)) {
        throw new HttpStepError(ctx.step, `header "${key}" contains a line break or NUL`)
      }
      sent[key] = value
    }
    let payload: string | undefined
    if (body !== undefined) {
      payload = JSON.stringify((await body.evaluate(state, ctx.step)) ?? null)
      sent['content-type'] ??= 'application/json'
    }
    const call = `${step.method} ${describe(target)}`
    let res
    try {
      res = await sendWithRetry({
        fetch: injectedFetch ?? decision.fetch,
        url: target.href,
        method: step.method,
        headers: sent,
        body: payload,
        attempts: step.retry?.attempts ?? 1,
        backoffMs: step.retry?.backoffMs ?? DEFAULT_BACKOFF_MS,
        timeoutMs,
        signal: ctx.signal,
        maxBodyBytes: MAX_BODY_BYTES,
        retryStatus: (s) => !expected.test(s),
      })
    } catch (err) {
      const detail = err instanceof RequestFailedError ? err.message : String(err)
      const tries = err instanceof RequestFailedError ? ` after ${err.attempts} attempt(s)` : ''
      throw new HttpStepError(ctx.step, `${call} failed${tries}: ${detail}`, undefined, {
        cause: err,
      })
    }
    if (!expected.test(res.status)) {
      throw new HttpStepError(
        ctx.step,
        `${call} answered ${res.status} (expected ${expected.text})`,
        res.status,
      )
    }
    const saved = {
      status: res.status,
      headers: res.headers,
      body: parseResponseBody(res.text, res.headers['content-type']),
    }
    return { [saveAs]: saved }
  }
}
