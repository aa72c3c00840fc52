import { CONNECTION_USAGE } from './operator.js'

/** `weave runs --help`. */
export const RUNS_USAGE = `Usage: weave runs <list|get|watch|cancel|fork> [options]

  list [--status <status>] [--graph <name>] [--limit <n>]
                       the newest runs: id, graph@version, status, last step
  get <id>             one run, its state included
  watch <id>           one line per event until the run ends; exits 0 when it completed
  cancel <id>          asks the run to stop
  fork <id> --seq <n> [--input <json>]
                       a new run from entry n of the run's history, with input merged in
${CONNECTION_USAGE}`

/** `weave threads --help`. */
export const THREADS_USAGE = `Usage: weave threads <list|get> [options]

  list [--status <idle|busy|waiting>] [--metadata <json>] [--limit <n>]
                       the newest threads: key, graph, status, strategy, active run
  get <key>            one thread: its active run, metadata and latest state
${CONNECTION_USAGE}`

/** `weave schedules --help`. */
export const SCHEDULES_USAGE = `Usage: weave schedules <list|get|pause|resume|trigger> [options]

  list [--limit <n>]   the newest schedules: id, target, cron or interval, paused, overlap
  get <id>             one schedule, its input included
  pause <id>           stops it firing until it is resumed (a no-op when paused)
  resume <id>          lets it fire again from its next tick
  trigger <id>         fires it now, paused or not: the run it started, or why none
${CONNECTION_USAGE}`

/** `weave approvals --help`. */
export const APPROVALS_USAGE = `Usage: weave approvals <list|show|approve|reject> [options]

  list [--status <status|all>] [--run <id>]
                       approvals, pending ones by default
  show <id>            one approval: its title, details, material hash and decisions
  approve <id> [--comment <text>] [--input <json>] [--hash <materialHash>]
  reject <id> [--comment <text>] [--input <json>] [--hash <materialHash>]
                       decide on the material just read, or only on the one with --hash (as
                       \`show\` printed it): Weave refuses with 409 when it has changed
${CONNECTION_USAGE}`

/** `weave graphs --help`. */
export const GRAPHS_USAGE = `Usage: weave graphs push <file> [--name <name>] [--description <text>]

Registers the graph in <file>: a POST /v1/graphs body ({ name, spec, description }) or a bare
spec named by --name. Prints the version and digest, and each JSON path of the spec that differs
from the latest version (+ added, - removed, ~ changed).
${CONNECTION_USAGE}`

/** `weave audit verify --help`. */
export const AUDIT_VERIFY_USAGE = `Usage: weave audit verify [options]

Asks Weave to check the tenant's audit hash chain (GET /v1/audit/verify; needs audit:read);
exits 1 when it is broken, naming the first bad event.
${CONNECTION_USAGE}`
