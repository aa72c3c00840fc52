import { EXIT, type Command } from '../cli-io.js'
import { clientFor, operate, parseCommand, printJson } from '../operator.js'
import { AUDIT_VERIFY_USAGE } from '../operator-usage.js'

/** `weave audit verify`: asks Weave to check the tenant's audit hash chain. */
export const auditVerifyCommand: Command = async (args, io) => {
  const { values, positionals } = parseCommand(args, {})
  if (values.help) {
    io.stdout(AUDIT_VERIFY_USAGE)
    return EXIT.ok
  }
  if (positionals.length > 0) {
    io.stderr(`weave audit verify: takes no arguments\n\n${AUDIT_VERIFY_USAGE}`)
    return EXIT.usage
  }
  const weave = clientFor(values, io)
  return operate('audit verify', io, async () => {
    const result = await weave.audit.verify()
    if (values.json) printJson(io, result)
    else if (result.ok) io.stdout(`ok: the audit chain holds (${result.checked} events checked)\n`)
    else {
      io.stdout(
        `broken: event ${result.firstBadId ?? '?'} breaks the chain (${result.checked} events checked)\n`,
      )
    }
    return result.ok ? EXIT.ok : EXIT.failure
  })
}
