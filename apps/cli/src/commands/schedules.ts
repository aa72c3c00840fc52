import type { Schedule, ScheduleFiring } from '@weave/client'
import { EXIT, UsageError, type Command } from '../cli-io.js'
import {
  cell,
  clientFor,
  onePositional,
  operate,
  parseCommand,
  positiveInteger,
  printFields,
  printJson,
  printTable,
} from '../operator.js'
import { SCHEDULES_USAGE } from '../operator-usage.js'

/** `weave schedules list|get|pause|resume|trigger`: a tenant's schedules, through the API. */
export const schedulesCommand: Command = async (args, io) => {
  const [subcommand, ...rest] = args
  const { values, positionals } = parseCommand(rest, { limit: { type: 'string' } })
  if (subcommand === undefined || subcommand === '--help' || subcommand === '-h' || values.help) {
    io.stdout(SCHEDULES_USAGE)
    return subcommand === undefined ? EXIT.usage : EXIT.ok
  }
  const weave = clientFor(values, io)
  return operate(`schedules ${subcommand}`, io, async () => {
    switch (subcommand) {
      case 'list': {
        const page = await weave.schedules.list(
          values.limit === undefined ? {} : { limit: positiveInteger(values.limit, '--limit') },
        )
        if (values.json) printJson(io, page)
        else {
          printTable(
            io,
            ['ID', 'TARGET', 'WHEN', 'PAUSED', 'OVERLAP'],
            page.items.map((s) => [s.id, target(s), timing(s), s.paused ? 'yes' : 'no', s.overlap]),
          )
        }
        return EXIT.ok
      }
      case 'get': {
        const schedule = await weave.schedules.get(onePositional(positionals, 'schedule id'))
        if (values.json) printJson(io, schedule)
        else printSchedule(io, schedule)
        return EXIT.ok
      }
      case 'pause':
      case 'resume': {
        const id = onePositional(positionals, 'schedule id')
        const schedule =
          subcommand === 'pause'
            ? await weave.schedules.pause(id)
            : await weave.schedules.resume(id)
        if (values.json) printJson(io, schedule)
        else io.stdout(`schedule ${schedule.id} ${schedule.paused ? 'paused' : 'active'}\n`)
        return EXIT.ok
      }
      case 'trigger': {
        const firing = await weave.schedules.trigger(onePositional(positionals, 'schedule id'))
        if (values.json) printJson(io, firing)
        else io.stdout(`${firingLine(firing)}\n`)
        return EXIT.ok
      }
      default:
        throw new UsageError(`unknown subcommand "${subcommand}"`)
    }
  })
}

/** What a schedule runs: a thread, or a graph at a version or its latest. */
function target(s: Schedule): string {
  if (s.target.thread !== null) return `thread ${s.target.thread}`
  return s.target.version === null ? s.target.graph : `${s.target.graph}@${s.target.version}`
}

/** When a schedule fires: its cron expression in its zone, or its interval. */
function timing(s: Schedule): string {
  return s.cron !== null ? `${s.cron} (${s.timezone ?? 'UTC'})` : `every ${s.everyMs} ms`
}

/** A firing in one line: the run it started, or why it started none. */
export function firingLine(firing: ScheduleFiring): string {
  return firing.outcome === 'started'
    ? `firing ${firing.id} started run ${firing.runId}`
    : `firing ${firing.id} skipped: ${cell(firing.reason)}`
}

function printSchedule(io: Parameters<Command>[1], s: Schedule): void {
  printFields(io, [
    ['id', s.id],
    ['target', target(s)],
    ['when', timing(s)],
    ['paused', s.paused ? 'yes' : 'no'],
    ['overlap', s.overlap],
    ['catch up', s.catchUp],
    ['input', JSON.stringify(s.input)],
    ['created', `${s.createdAt} by ${s.createdBy}`],
    ['updated', s.updatedAt],
  ])
}
