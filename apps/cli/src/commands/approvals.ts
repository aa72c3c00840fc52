import type { Approval, ListApprovalsQuery } from '@weave/client'
import { EXIT, type Command } from '../cli-io.js'
import {
  cell,
  jsonObject,
  oneOf,
  onePositional,
  operatorCommand,
  printFields,
  printJson,
  printTable,
} from '../operator.js'
import { APPROVALS_USAGE } from '../operator-usage.js'

const STATUSES = ['pending', 'approved', 'rejected', 'expired', 'cancelled'] as const

/** `weave approvals list|show|approve|reject`: a tenant's approvals, through the API. */
export const approvalsCommand: Command = operatorCommand({
  name: 'approvals',
  usage: APPROVALS_USAGE,
  options: {
    status: { type: 'string' },
    run: { type: 'string' },
    comment: { type: 'string' },
    input: { type: 'string' },
    hash: { type: 'string' },
  },
  subcommands: {
    list: async ({ values, weave, io }) => {
      const status = oneOf(values.status ?? 'pending', STATUSES, '--status', 'all')
      const query: ListApprovalsQuery = {
        ...(status === 'all' ? {} : { status }),
        ...(values.run === undefined ? {} : { runId: values.run }),
      }
      const page = await weave.approvals.list(query)
      if (values.json) printJson(io, page)
      else {
        printTable(
          io,
          ['ID', 'RUN', 'STEP', 'STATUS', 'TITLE'],
          page.items.map((a) => [a.id, a.runId, a.step, a.status, a.title]),
        )
      }
      return EXIT.ok
    },
    show: async ({ values, positionals, weave, io }) => {
      const approval = await weave.approvals.get(onePositional(positionals, 'approval id'))
      if (values.json) printJson(io, approval)
      else printApproval(io, approval)
      return EXIT.ok
    },
    approve: async ({ subcommand, values, positionals, weave, io }) => {
      const approval = await weave.approvals.get(onePositional(positionals, 'approval id'))
      // With --hash, the decision holds only for the material `show` printed; without it, for
      // what was just read, which this command prints with the outcome.
      const decided = await weave.approvals.decide(
        { id: approval.id, materialHash: values.hash ?? approval.materialHash },
        subcommand === 'approve' ? 'approve' : 'reject',
        {
          ...(values.comment === undefined ? {} : { comment: values.comment }),
          ...(values.input === undefined ? {} : { input: jsonObject(values.input, '--input') }),
        },
      )
      if (values.json) printJson(io, decided)
      else {
        io.stdout(
          `${subcommand === 'approve' ? 'approved' : 'rejected'} "${decided.title}" ` +
            `(approval ${decided.id}, now ${decided.status})\n`,
        )
      }
      return EXIT.ok
    },
  },
  aliases: { reject: 'approve' },
})

function printApproval(io: Parameters<Command>[1], approval: Approval): void {
  const approvers = [
    ...(approval.approvers.subjects ?? []).map((s) => `subject ${s}`),
    ...(approval.approvers.scopes ?? []).map((s) => `scope ${s}`),
  ]
  printFields(io, [
    ['id', approval.id],
    ['run', approval.runId],
    ['step', approval.step],
    ['status', approval.status],
    ['title', approval.title],
    ['details', cell(approval.details)],
    ['material hash', approval.materialHash],
    ['approvers', approvers.length === 0 ? 'anyone with approvals:decide' : approvers.join(', ')],
    ['required', String(approval.required)],
    ['separation of duties', approval.separationOfDuties ? 'yes' : 'no'],
    ['expires', cell(approval.expiresAt)],
    [
      'decisions',
      approval.decisions.length === 0
        ? '-'
        : approval.decisions
            .map((d) => `${d.decision} by ${d.by} at ${d.at}${d.comment ? `: ${d.comment}` : ''}`)
            .join('; '),
    ],
  ])
}
