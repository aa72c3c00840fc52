import { z } from 'zod'
import { Expression, Target } from './schema-primitives.js'

/** `{ branch, routes, default }`: the string value of `branch` picks a route. */
export const BranchNext = z.strictObject({
  branch: Expression,
  routes: z.record(z.string(), Target),
  default: Target.optional(),
})
export type BranchNext = z.infer<typeof BranchNext>

/** `{ when: [{ if, then }], else }`: the first truthy `if` wins. */
export const WhenNext = z.strictObject({
  when: z.array(z.strictObject({ if: Expression, then: Target })).min(1),
  else: Target.optional(),
})
export type WhenNext = z.infer<typeof WhenNext>

/** A step's `next`: absent or null ends the run, a name always goes there, or a branch/when. */
export const Next = z.union([z.null(), z.string(), BranchNext, WhenNext], {
  error: 'next is a step name, null, { branch, routes, default } or { when, else }',
})
export type Next = z.infer<typeof Next>
