export {
  CHECKPOINT_SCHEMA_VERSION,
  checkpointNamespace,
  loadCheckpoint,
  type LoadedCheckpoint,
  type Checkpoint,
  type CheckpointInfo,
  type CheckpointStatus,
  type YieldPhase,
} from './checkpoint.js'
export type { Step, StepContext, StepHook } from './context.js'
export * from './errors.js'
export {
  Graph,
  type GraphOptions,
  type ResumeAtOptions,
  type ResumeOptions,
  type RunOptions,
  type StepInfo,
} from './graph.js'
export type { Delta, Json, State } from './json.js'
export {
  append,
  defaultMergeConfig,
  merge,
  MergeConfig,
  mergeObject,
  overwrite,
  sum,
  type MergePolicy,
} from './merge.js'
export { parallel, type ParallelMerge } from './parallel.js'
export {
  always,
  branch,
  branchFunc,
  condition,
  end,
  END,
  type Edge,
  type Router,
} from './routers.js'
export type { RunResult, StepEvent, StopReason, YieldInfo } from './run-loop.js'
export { MemStore, type Store } from './store.js'
export { subgraph, type SubgraphOptions } from './subgraph.js'
