/** A JSON value. */
export type Json = null | boolean | number | string | Json[] | { [k: string]: Json }

/** A run's state: a JSON object. */
export type State = Record<string, Json>

/** What a step returns: only the keys it changes. */
export type Delta = Partial<State> | void | null
