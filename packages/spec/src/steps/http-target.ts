import type { Json } from '@weave/kernel'
import { EgressDeniedError, HttpStepError } from '../errors.js'
import type { EgressDecision } from '../http/egress.js'
import type { StepCompileContext } from './step-compiler.js'

/** An egress decision that allowed the call, with the fetch pinned to the checked addresses. */
export type AllowedEgress = Extract<EgressDecision, { isAllowed: true }>

/**
 * The URL a step will call, once the egress policy allowed it: the parsed target and the
 * decision, whose fetch goes only to the addresses it checked. The http step and an agent's http
 * tools both call out through here, so they answer to one policy.
 * @throws HttpStepError for a URL that is not absolute or a host that does not resolve
 * @throws EgressDeniedError when the policy refuses the target
 */
export async function allowedTarget(
  rendered: string,
  step: string,
  egress: StepCompileContext['egress'],
): Promise<{ target: URL; decision: AllowedEgress }> {
  let target: URL
  try {
    target = new URL(rendered)
  } catch {
    throw new HttpStepError(step, `${JSON.stringify(rendered)} is not an absolute URL`)
  }
  let decision: EgressDecision
  try {
    decision = await egress.decide(target)
  } catch (err) {
    throw new HttpStepError(
      step,
      `cannot resolve ${target.hostname}: ${(err as Error).message}`,
      undefined,
      { cause: err },
    )
  }
  if (!decision.isAllowed) throw new EgressDeniedError(step, decision.reason)
  return { target, decision }
}

function isJsonType(contentType: string | undefined): boolean {
  return /^application\/(?:[\w.+-]+\+)?json\b/i.test(contentType?.trim() ?? '')
}

/** A response body as JSON when its content type says JSON and it parses, else its text. */
export function parseResponseBody(text: string, contentType: string | undefined): Json {
  if (!isJsonType(contentType) || text === '') return text
  try {
    return JSON.parse(text) as Json
  } catch {
    return text
  }
}
