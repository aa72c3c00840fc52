import type { Thread, ThreadSummary } from '@weave/client'
import { EXIT, type Command } from '../cli-io.js'
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
import { THREADS_USAGE } from '../operator-usage.js'

const STATUSES: readonly ThreadSummary['status'][] = ['idle', 'busy', 'waiting']

/** `weave threads list|get`: a tenant's threads, through the API. */
export const threadsCommand: Command = operatorCommand({
  name: 'threads',
  usage: THREADS_USAGE,
  options: {
    status: { type: 'string' },
    metadata: { type: 'string' },
    limit: { type: 'string' },
  },
  subcommands: {
    list: async ({ values, weave, io }) => {
      const status = oneOf(values.status, STATUSES, '--status')
      const page = await weave.threads.list({
        ...(status === undefined ? {} : { status }),
        ...(values.metadata === undefined
          ? {}
          : { metadata: JSON.stringify(jsonObject(values.metadata, '--metadata')) }),
        ...(values.limit === undefined ? {} : { limit: positiveInteger(values.limit, '--limit') }),
      })
      if (values.json) printJson(io, page)
      else {
        printTable(
          io,
          ['KEY', 'GRAPH', 'STATUS', 'STRATEGY', 'ACTIVE RUN', 'UPDATED'],
          page.items.map((t) => [
            t.key,
            t.version === null ? t.graph : `${t.graph}@${t.version}`,
            t.status,
            t.strategy,
            cell(t.activeRunId),
            t.updatedAt,
          ]),
        )
      }
      return EXIT.ok
    },
    get: async ({ values, positionals, weave, io }) => {
      const thread = await weave.threads.get(onePositional(positionals, 'thread key'))
      if (values.json) printJson(io, thread)
      else printThread(io, thread)
      return EXIT.ok
    },
  },
})

function printThread(io: Parameters<Command>[1], thread: Thread): void {
  const active = thread.activeRun
  printFields(io, [
    ['key', thread.key],
    [
      'graph',
      thread.version === null ? `${thread.graph} (latest)` : `${thread.graph}@${thread.version}`,
    ],
    ['status', thread.status],
    ['strategy', thread.strategy],
    ['active run', active ? `${active.id} (${active.status})` : '-'],
    ['metadata', JSON.stringify(thread.metadata)],
    ['created', `${thread.createdAt} by ${thread.createdBy}`],
    ['updated', thread.updatedAt],
    ['state', JSON.stringify(thread.state)],
  ])
}
