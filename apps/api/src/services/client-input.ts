import type { Json } from '@weave/kernel'
import {
  approvalRecordKeys,
  clientStateProblems,
  validateAgainstSchema,
  type SpecProblem,
} from '@weave/spec'
import { BadRequestError } from '../http/app-errors.js'

/** Where a client's state sits in the requests that carry one. */
const INPUT_POINTER = '/body/input'

/**
 * Refuses a state a client wants to put into a run (a run's, fork's or resume's input): a
 * top-level `__` key would set the kernel's control keys (budget, yields), and an approval step's
 * record key would forge its decision, so neither may come from a client; and, when given, the
 * JSON Schema the input must satisfy (`schemaProblems`).
 * @throws {BadRequestError} listing every problem, paths under `/body/input`
 */
export function refuseClientState(
  input: unknown,
  spec: unknown,
  schemaProblems: readonly SpecProblem[] = [],
): void {
  const problems = [...clientStateProblems(input, approvalRecordKeys(spec)), ...schemaProblems]
  if (problems.length === 0) return
  throw new BadRequestError('The input cannot enter the run.', { errors: inputErrors(problems) })
}

/**
 * Refuses a decision's input that holds a top-level `__` key, before anything is decided, so a
 * refused request leaves the approval (and an approval link's token) untouched. The step's own
 * `schema` is checked where the decision is recorded (see {@link asDecisionInputRefusal}).
 * @throws {BadRequestError} naming every reserved key
 */
export function refuseReservedDecisionKeys(input: unknown): void {
  const problems = clientStateProblems(input)
  if (problems.length === 0) return
  throw new BadRequestError('The decision input cannot be recorded.', {
    errors: inputErrors(problems),
  })
}

/** The problems of `input` against a JSON Schema; none when there is no schema. */
export function schemaProblems(schema: Json | null | undefined, input: Json): SpecProblem[] {
  return schema === null || schema === undefined ? [] : validateAgainstSchema(schema, input)
}

/**
 * A decision's input refused by the approval step's `schema` (`decision-input-invalid`) as a
 * 400 naming each path; any other error as it is.
 */
export function asDecisionInputRefusal(err: unknown): unknown {
  const { code, problems } = err as { code?: unknown; problems?: SpecProblem[] }
  if (code !== 'decision-input-invalid' || !Array.isArray(problems)) return err
  return new BadRequestError("The decision input does not match the approval step's schema.", {
    errors: inputErrors(problems),
    cause: err,
  })
}

function inputErrors(problems: readonly SpecProblem[]): Array<{ path: string; message: string }> {
  return problems.map((p) => ({ path: `${INPUT_POINTER}${p.path}`, message: p.message }))
}
