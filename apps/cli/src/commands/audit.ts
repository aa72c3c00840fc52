import { createReadStream, existsSync, readFileSync } from 'node:fs'
import { createInterface } from 'node:readline'
import { parseArgs } from 'node:util'
import {
  AuditExportFormatError,
  parseAuditPublicKey,
  parseSignedAnchor,
  verifyAuditExport,
  type SignedAnchor,
} from '@weave/db'
import { EXIT, UsageError, type Command } from '../cli-io.js'
import { auditVerifyCommand } from './audit-verify.js'
import { AUDIT_USAGE } from '../usage.js'

/** `weave audit verify-export`: verifies an audit export offline with only the public key. */
export const auditCommand: Command = async (args, io) => {
  const [subcommand, ...rest] = args
  if (subcommand === undefined || subcommand === '--help' || subcommand === '-h') {
    io.stdout(AUDIT_USAGE)
    return subcommand === undefined ? EXIT.usage : EXIT.ok
  }
  if (subcommand === 'verify') return auditVerifyCommand(rest, io)
  if (subcommand !== 'verify-export') throw new UsageError(`unknown subcommand "${subcommand}"`)
  const { values, positionals } = parseOptions(rest)
  if (values.help) {
    io.stdout(AUDIT_USAGE)
    return EXIT.ok
  }
  const [file, ...extra] = positionals
  if (file === undefined || extra.length > 0) throw new UsageError('give exactly one export file')
  if (!values['public-key']) throw new UsageError('--public-key is required')
  const publicKey = parsePublicKey(values['public-key'])
  const anchors = (values.anchor ?? []).flatMap(readAnchors)
  if (!existsSync(file)) throw new UsageError(`${file}: no such file`)
  const lines = createInterface({ input: createReadStream(file, 'utf8'), crlfDelay: Infinity })
  let result
  try {
    result = await verifyAuditExport(lines, { publicKey, anchors })
  } catch (error) {
    if (error instanceof AuditExportFormatError) {
      io.stderr(`weave audit: ${file}: ${error.message}\n`)
      return EXIT.failure
    }
    throw error
  }
  if (values.json) io.stdout(`${JSON.stringify(result)}\n`)
  else io.stdout(`${summary(result)}\n`)
  return result.ok ? EXIT.ok : EXIT.failure
}

function summary(result: Awaited<ReturnType<typeof verifyAuditExport>>): string {
  const anchor = result.anchor
    ? `anchor at seq ${result.anchor.seq} signed ${result.anchor.at} by key ${result.anchor.keyId}`
    : 'no anchor: a deletion of the newest events cannot be seen'
  if (result.ok) return `ok: ${result.checked} events of tenant ${result.tenant ?? '-'}; ${anchor}`
  const at = result.firstBadSeq === undefined ? '' : ` at seq ${result.firstBadSeq}`
  const id = result.firstBadId === undefined ? '' : ` (event ${result.firstBadId})`
  return `broken: ${result.problem ?? 'unknown'}${at}${id}; ${anchor}`
}

function parsePublicKey(value: string) {
  const text = !value.startsWith('-----') && existsSync(value) ? readFileSync(value, 'utf8') : value
  try {
    return parseAuditPublicKey(text)
  } catch (error) {
    throw new UsageError(`--public-key ${(error as Error).message}`)
  }
}

/** An anchor file: one anchor as JSON (as the anchor webhook received it), or one a line. */
function readAnchors(path: string): SignedAnchor[] {
  if (!existsSync(path)) throw new UsageError(`--anchor ${path}: no such file`)
  const text = readFileSync(path, 'utf8')
  try {
    const whole: unknown = JSON.parse(text)
    return [parseSignedAnchor(whole)]
  } catch {
    // Not one JSON document: one anchor a line.
  }
  try {
    return text
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => parseSignedAnchor(JSON.parse(line)))
  } catch (error) {
    throw new UsageError(`--anchor ${path}: ${(error as Error).message}`)
  }
}

function parseOptions(args: string[]) {
  try {
    return parseArgs({
      args: withKeyValuesAttached(args),
      options: {
        'public-key': { type: 'string' },
        anchor: { type: 'string', multiple: true },
        json: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
      allowPositionals: true,
      strict: true,
    })
  } catch (error) {
    throw new UsageError((error as Error).message)
  }
}

/**
 * `--public-key <key>` as `--public-key=<key>`: a base64url key starts with `-` one time in 64,
 * and parseArgs refuses a separate value that starts with a dash as ambiguous.
 */
function withKeyValuesAttached(args: string[]): string[] {
  const out: string[] = []
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!
    const value = args[i + 1]
    if (arg === '--public-key' && value !== undefined) {
      out.push(`${arg}=${value}`)
      i++
    } else out.push(arg)
  }
  return out
}
