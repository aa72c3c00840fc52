import type { Run, RunEvent, RunStatus } from '@weave/client'
import { EXIT, UsageError, type Command } from '../cli-io.js'
import {
  cell,
  jsonObject,
  oneOf,
  onePositional,
  operatorCommand,
  positiveInteger,
  printFields,
  printJson,
  printTable,
} from '../operator.js'
import { RUNS_USAGE } from '../operator-usage.js'

const STATUSES: readonly RunStatus[] = [
  'queued',
  'running',
  'waiting',
  'completed',
  'failed',
  'cancelled',
]

/** `weave runs list|get|watch|cancel|fork`: a tenant's runs, through the API. */
export const runsCommand: Command = operatorCommand({
  name: 'runs',
  usage: RUNS_USAGE,
  options: {
    status: { type: 'string' },
    graph: { type: 'string' },
    limit: { type: 'string' },
    seq: { type: 'string' },
    input: { type: 'string' },
  },
  subcommands: {
    list: async ({ values, weave, io }) => {
      const status = oneOf(values.status, STATUSES, '--status')
      const page = await weave.runs.list({
        ...(status === undefined ? {} : { status }),
        ...(values.graph === undefined ? {} : { graph: values.graph }),
        ...(values.limit === undefined ? {} : { limit: positiveInteger(values.limit, '--limit') }),
      })
      if (values.json) printJson(io, page)
      else {
        printTable(
          io,
          ['ID', 'GRAPH', 'STATUS', 'LAST STEP', 'UPDATED'],
          page.items.map((r) => [
            r.id,
            `${r.graph}@${r.version}`,
            r.status,
            cell(r.lastStep),
            r.updatedAt,
          ]),
        )
      }
      return EXIT.ok
    },
    get: async ({ values, positionals, weave, io }) => {
      const run = await weave.runs.get(onePositional(positionals, 'run id'))
      if (values.json) printJson(io, run)
      else printRun(io, run)
      return EXIT.ok
    },
    watch: async ({ values, positionals, weave, io }) => {
      const id = onePositional(positionals, 'run id')
      for await (const event of weave.runs.events(id)) {
        if (values.json) printJson(io, event)
        else io.stdout(`${progressLine(event)}\n`)
      }
      const run = await weave.runs.get(id)
      if (values.json) printJson(io, run)
      else io.stdout(`run ${run.id} ${run.status}${run.error ? `: ${cell(run.error)}` : ''}\n`)
      return run.status === 'completed' ? EXIT.ok : EXIT.failure
    },
    cancel: async ({ values, positionals, weave, io }) => {
      const result = await weave.runs.cancel(onePositional(positionals, 'run id'))
      if (values.json) printJson(io, result)
      else io.stdout(`cancel requested for run ${result.id} (${result.status})\n`)
      return EXIT.ok
    },
    fork: async ({ values, positionals, weave, io }) => {
      const id = onePositional(positionals, 'run id')
      if (values.seq === undefined) throw new UsageError('--seq <n> is required')
      const run = await weave.runs.fork(id, {
        seq: positiveInteger(values.seq, '--seq', 0),
        ...(values.input === undefined ? {} : { input: jsonObject(values.input, '--input') }),
      })
      if (values.json) printJson(io, run)
      else io.stdout(`forked run ${id} at ${values.seq} into run ${run.id} (${run.status})\n`)
      return EXIT.ok
    },
  },
})

function printRun(io: Parameters<Command>[1], run: Run): void {
  const fields: Array<[string, string]> = [
    ['id', run.id],
    ['graph', `${run.graph}@${run.version}`],
    ['status', run.status],
    ['last step', cell(run.lastStep)],
    ['steps', String(run.steps)],
    ['waiting on', run.waitingOn ? `${run.waitingOn.kind} ${run.waitingOn.step}` : '-'],
    ['created', `${run.createdAt} by ${run.createdBy}`],
    ['updated', run.updatedAt],
  ]
  if (run.error !== null && run.error !== undefined) fields.push(['error', cell(run.error)])
  if (run.forkedFrom) fields.push(['forked from', `${run.forkedFrom} at ${run.forkedSeq}`])
  fields.push(['state', JSON.stringify(run.state)])
  printFields(io, fields)
}

/** One line per event while watching: its number, its type and the step it names. */
export function progressLine(event: RunEvent): string {
  const data = event.data as Record<string, unknown>
  const step = typeof data.step === 'string' ? ` ${data.step}` : ''
  return `#${event.id} ${event.at} ${event.type}${step}`
}
