import { describe, expect, it } from 'vitest'
import { Scope } from '@weave/api'
import type { CliIo } from '../src/cli-io.js'
import { main } from '../src/main.js'

describe('weave token --help', () => {
  it('lists every scope a token may carry, without lines wider than the usage line', async () => {
    const io: CliIo & { out: string } = {
      out: '',
      stdout: (text: string) => void (io.out += text),
      stderr: () => undefined,
      env: {},
    }
    expect(await main(['token', '--help'], io)).toBe(0)
    const listed = new Set(io.out.split(/\s+/))
    expect(Scope.options.filter((scope) => !listed.has(scope))).toEqual([])
    expect(io.out.split('\n').filter((line) => line.length > 90)).toEqual([])
  })
})
