import { FrozenMergeConfigError } from './errors.js'
import type { Delta, Json, State } from './json.js'
import { copyJson, deepFreeze, setOwn } from './json-copy.js'

/** Combines a key's existing value with a step's incoming value. */
export type MergePolicy = (existing: Json | undefined, incoming: Json) => Json

/** The incoming value replaces the existing one (the default for every key). */
export const overwrite: MergePolicy = (_existing, incoming) => incoming

const asArray = (v: Json | undefined): Json[] => (v === undefined ? [] : Array.isArray(v) ? v : [v])

/** Concatenates: a non-array value counts as a one-element array, a missing one as empty. */
export const append: MergePolicy = (existing, incoming) => [
  ...asArray(existing),
  ...asArray(incoming),
]

const asNumber = (v: Json | undefined): number => (typeof v === 'number' ? v : 0)

/** Adds numbers; a non-number counts as 0. */
export const sum: MergePolicy = (existing, incoming) => asNumber(existing) + asNumber(incoming)

const asObject = (v: Json | undefined): { [k: string]: Json } =>
  v !== null && typeof v === 'object' && !Array.isArray(v) ? v : {}

/** Shallow object merge, incoming keys win; a non-object counts as `{}`. */
export const mergeObject: MergePolicy = (existing, incoming) => ({
  ...asObject(existing),
  ...asObject(incoming),
})

const frozenConfigs = new WeakSet<MergeConfig>()

/** Per-key merge policies; a Graph freezes the config it is given. */
export class MergeConfig {
  readonly #policies = new Map<string, MergePolicy>()

  /**
   * Sets the policy of `key`.
   * @throws FrozenMergeConfigError once a Graph has frozen this config
   */
  register(key: string, policy: MergePolicy): this {
    if (this.frozen) throw new FrozenMergeConfigError(key)
    this.#policies.set(key, policy)
    return this
  }

  /** The policy registered for `key`, else `overwrite`. */
  policyFor(key: string): MergePolicy {
    return this.#policies.get(key) ?? overwrite
  }

  /** True once a Graph uses this config. */
  get frozen(): boolean {
    return frozenConfigs.has(this)
  }
}

/** Freezes a MergeConfig; called by the Graph constructor (not exported from the package). */
export function freezeMergeConfig(config: MergeConfig): void {
  frozenConfigs.add(config)
}

/** A fresh, unfrozen config in which "messages" appends. */
export function defaultMergeConfig(): MergeConfig {
  return new MergeConfig().register('messages', append)
}

/**
 * Returns a new state: `state`'s keys, then each own key of `delta` (undefined values skipped)
 * combined by its policy. Never modifies its arguments (merge.prop.test.ts).
 */
export function merge(state: Readonly<State>, delta: Delta, config?: MergeConfig): State {
  const out: State = { ...state }
  if (delta === null || delta === undefined) return out
  for (const key of Object.keys(delta)) {
    const incoming = delta[key]
    if (incoming === undefined) continue
    if (!config) {
      setOwn(out, key, incoming)
      continue
    }
    const existing = Object.hasOwn(state, key) ? state[key] : undefined
    setOwn(out, key, config.policyFor(key)(existing, incoming))
  }
  return out
}

/**
 * `merge` as a run applies it: every merged value deeply frozen and JSON, so a later step sees
 * what a resumed run would. The returned object itself is not frozen, for the caller to finish.
 * @throws what a policy throws; TypeError when a policy returns a value with no JSON form
 */
export function mergeSettled(state: Readonly<State>, delta: Delta, config?: MergeConfig): State {
  const next = merge(state, delta, config)
  // Without policies every merged value is the delta's own, frozen when it was copied.
  if (config && delta)
    for (const key of Object.keys(delta)) settle(next, key, config.policyFor(key))
  return next
}

const BUILT_IN_POLICIES: ReadonlySet<MergePolicy> = new Set([overwrite, append, sum, mergeObject])

/**
 * The built-in policies build a new container of values that are already frozen copies, so
 * freezing it is enough. Another policy's result may share objects with what the policy keeps,
 * hold a frozen object with unfrozen insides, or not be JSON: it is copied as JSON, like a delta.
 */
function settle(next: State, key: string, policy: MergePolicy): void {
  if (!Object.hasOwn(next, key)) return
  if (BUILT_IN_POLICIES.has(policy)) {
    deepFreeze(next[key])
    return
  }
  const copy = copyJson(next[key])
  if (copy === undefined) delete next[key]
  else setOwn(next, key, copy)
}
