/** `weave --help`. */
export const USAGE = `Usage: weave <command> [options]

Commands:
  start     migrate, then run the API and a worker in one process
  api       run the HTTP API
  worker    run a worker that executes runs
  migrate   create the database when missing and apply migrations
  token     print a development token (needs WEAVE_JWT_SECRET)

Run \`weave <command> --help\` for a command's options.
Configuration comes only from environment variables; an invalid one exits with status 2.
`

/** `weave token --help`. */
export const TOKEN_USAGE = `Usage: weave token --tenant <id> --sub <subject> --scope "<scopes>" [--ttl <duration>]

Prints an HS256 token signed with WEAVE_JWT_SECRET, for development.

  --tenant <id>        the tenant (1-100 of A-Z a-z 0-9 . _ -)
  --sub <subject>      the subject, recorded as the actor in the audit log
  --scope "<scopes>"   space-separated, from: graphs:read graphs:write runs:read runs:write
                       approvals:read approvals:decide approvals:link audit:read
                       webhooks:manage
  --ttl <duration>     lifetime: 90s, 15m, 1h (default), 7d; at most 365d
`
