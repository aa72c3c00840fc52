import { defineHandler } from '@weave/spec'

/** `test.double`: doubles `state.n` (or the field named by the step's `config`) into `doubled`. */
export const double = defineHandler('test.double', (state, ctx) => {
  const key = typeof ctx.config === 'string' ? ctx.config : 'n'
  const value = state[key]
  return { doubled: typeof value === 'number' ? value * 2 : null }
})
