import fc from 'fast-check'
import type { Json, State } from '@weave/kernel'

/** A state key: never a kernel `__` key, never a prototype name. */
export const stateKey = fc.stringMatching(/^[a-z]{1,4}$/)

/** A JSON value that survives JSON.stringify/parse unchanged (no -0). */
export const jsonValue: fc.Arbitrary<Json> = fc
  .jsonValue({ maxDepth: 3 })
  .map((v) => JSON.parse(JSON.stringify(v)) as Json)

/** A small state of user keys. */
export const state: fc.Arbitrary<State> = fc.dictionary(stateKey, jsonValue, {
  maxKeys: 5,
  noNullPrototype: true,
})
