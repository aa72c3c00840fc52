import { append, MergeConfig, mergeObject, overwrite, sum, type MergePolicy } from '@weave/kernel'
import type { MergePolicyName } from './graph-spec.js'

const POLICIES: Record<MergePolicyName, MergePolicy> = { overwrite, append, sum, mergeObject }

/** A kernel MergeConfig with the spec's named policy per key (others overwrite). */
export function buildMergeConfig(merge: Readonly<Record<string, MergePolicyName>>): MergeConfig {
  const config = new MergeConfig()
  for (const [key, name] of Object.entries(merge)) config.register(key, POLICIES[name])
  return config
}
