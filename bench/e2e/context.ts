import type { ApiClient } from './api-client.js'
import type { CpuSources } from './cpu.js'
import type { Settings } from './settings.js'

/** What every scenario works with. */
export interface BenchContext {
  /** Calls as the subject who registers graphs and starts runs. */
  starter: ApiClient
  /** Calls as another subject of the same tenant, who decides approvals. */
  approver: ApiClient
  settings: Settings
  /** Weave's processes and database, to account the CPU they use. */
  cpu: CpuSources
  /** Throws when a Weave process died. */
  assertRunning: () => void
  /** Writes a progress line (to stderr; stdout carries the report). */
  log: (line: string) => void
}
