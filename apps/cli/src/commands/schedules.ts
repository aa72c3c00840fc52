import type { Schedule, ScheduleFiring } from '@weave/client'
import { EXIT, type Command } from '../cli-io.js'
import {
  cell,
  onePositional,
  operatorCommand,
  positiveInteger,
  printFields,
  printJson,
  printTable,
} from '../operator.js'
import { SCHEDULES_USAGE } from '../operator-usage.js'

/** `weave schedules list|get|pause|resume|trigger`: a tenant's schedules, through the API. */
export const schedulesCommand: Command = operatorCommand({
  name: 'schedules',
  usage: SCHEDULES_USAGE,
  options: { limit: { type: 'string' } },
  subcommands: {
    list: async ({ values, weave, io }) => {
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
    },
    get: async ({ values, positionals, weave, io }) => {
      const schedule = await weave.schedules.get(onePositional(positionals, 'schedule id'))
      if (values.json) printJson(io, schedule)
      else printSchedule(io, schedule)
      return EXIT.ok
    },
    pause: async ({ subcommand, values, positionals, weave, io }) => {
      const id = onePositional(positionals, 'schedule id')
      const schedule =
        subcommand === 'pause' ? await weave.schedules.pause(id) : await weave.schedules.resume(id)
      if (values.json) printJson(io, schedule)
      else io.stdout(`schedule ${schedule.id} ${schedule.paused ? 'paused' : 'active'}\n`)
      return EXIT.ok
    },
    trigger: async ({ values, positionals, weave, io }) => {
      const firing = await weave.schedules.trigger(onePositional(positionals, 'schedule id'))
      if (values.json) printJson(io, firing)
      else io.stdout(`${firingLine(firing)}\n`)
      return EXIT.ok
    },
  },
  aliases: { resume: 'pause' },
})

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
