import type { CompileDeps } from '../compile-deps.js'
import type { ExpressionLimits } from '../expression.js'
import type { EgressPolicy } from '../http/egress.js'

/** What every step compiler gets: the graph's deps, resolved once per compileGraph. */
export interface StepCompileContext {
  deps: CompileDeps
  limits: ExpressionLimits
  now: () => Date
  egress: EgressPolicy
  /** State keys holding the graph's approval and agent decision records: only their steps write them. */
  recordKeys: readonly string[]
}
