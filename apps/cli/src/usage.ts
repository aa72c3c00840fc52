import { Scope } from '@weave/api'

/** `weave --help`. */
export const USAGE = `Usage: weave <command> [options]

Commands:
  start     migrate, then run the API and a worker in one process
  api       run the HTTP API
  worker    run a worker that executes runs
  migrate   create the database when missing and apply migrations
  token     print a development token (needs WEAVE_JWT_SECRET)
  doctor    check the configuration, the database login, migrations and Redis
  audit     verify an audit export offline: audit verify-export <file> --public-key <key>;
            or ask Weave to check the audit chain: audit verify
  runs      list, get, watch, cancel or fork runs (needs --token or WEAVE_TOKEN)
  approvals list, show, approve or reject approvals
  graphs    push a graph file: its version, digest and what changed
  threads   list threads or get one with its state
  schedules list, get, pause, resume or trigger schedules

Run \`weave <command> --help\` for a command's options.
Configuration comes only from environment variables; an invalid one exits with status 2.
`

// The scopes a token may carry, as the API defines them: the help cannot fall behind.
function wrapped(words: readonly string[], width: number, indent: string): string {
  const lines: string[] = []
  for (const word of words) {
    const last = lines.length - 1
    if (last >= 0 && `${lines[last]} ${word}`.length <= width) lines[last] += ` ${word}`
    else lines.push(word)
  }
  return lines.join(`\n${indent}`)
}

/** `weave token --help`. */
export const TOKEN_USAGE = `Usage: weave token --tenant <id> --sub <subject> --scope "<scopes>" [--ttl <duration>]

Prints an HS256 token signed with WEAVE_JWT_SECRET, for development.

  --tenant <id>        the tenant (1-100 of A-Z a-z 0-9 . _ -)
  --sub <subject>      the subject, recorded as the actor in the audit log
  --scope "<scopes>"   space-separated, from:
                       ${wrapped(Scope.options, 56, ' '.repeat(23))}
  --ttl <duration>     lifetime: 90s, 15m, 1h (default), 7d; at most 365d
`

/** `weave audit --help`. */
export const AUDIT_USAGE = `Usage: weave audit verify-export <file> --public-key <key> [--anchor <file>]... [--json]
       weave audit verify [--url <url>] [--token <token>] [--json]   (see weave audit verify --help)

Verifies an export of GET /v1/audit/export offline, trusting only the public key: every anchor
must be signed by it, and the chain must be intact and reach the newest anchor with the hash it
signed. Exits 0 when it is, 1 when it is not (naming the problem and the first bad seq).

  --public-key <key>   the publicKey or pem of GET /v1/audit/keys, or a file holding it
  --anchor <file>      anchors kept elsewhere (as the anchor webhook received them: one JSON
                       object, or one a line); may be repeated
  --json               print the verification as JSON
`

/** `weave doctor --help`. */
export const DOCTOR_USAGE = `Usage: weave doctor

Checks what weave api and weave worker need, as the environment configures them, and prints
one line per check: the configuration (in production, WEAVE_SECRETS_KEY and
WEAVE_AUDIT_SIGNING_KEY too), the runtime database login (not a superuser, no BYPASSRLS, owns
nothing, may act as weave_app), the migrations (read as WEAVE_MIGRATE_DATABASE_URL) and Redis.
Exits 1 when anything is wrong.
`
