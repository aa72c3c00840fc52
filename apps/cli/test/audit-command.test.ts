import { generateKeyPairSync } from 'node:crypto'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it, onTestFinished } from 'vitest'
import { describeAuditPublicKey } from '@weave/db'
import type { CliIo } from '../src/cli-io.js'
import { main } from '../src/main.js'

function captureIo(): CliIo & { out: string; err: string } {
  const io = {
    out: '',
    err: '',
    stdout: (text: string) => void (io.out += text),
    stderr: (text: string) => void (io.err += text),
    env: {},
  }
  return io
}

/** A public key as GET /v1/audit/keys gives it, chosen to start with a dash. */
function keyStartingWithDash(): string {
  for (;;) {
    const { publicKey } = generateKeyPairSync('ed25519')
    const described = describeAuditPublicKey(publicKey).publicKey
    if (described.startsWith('-')) return described
  }
}

describe('weave audit verify-export', () => {
  it('takes a public key that starts with a dash as the value of --public-key', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'weave-audit-cli-'))
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }))
    const file = join(dir, 'export.ndjson')
    writeFileSync(file, '')
    const io = captureIo()
    const code = await main(
      ['audit', 'verify-export', file, '--public-key', keyStartingWithDash()],
      io,
    )
    // An empty export verifies as an empty chain; parseArgs had refused the key as ambiguous.
    expect({ code, out: io.out, err: io.err }).toEqual({
      code: 0,
      out: 'ok: 0 events of tenant -; no anchor: a deletion of the newest events cannot be seen\n',
      err: '',
    })
  })
})
