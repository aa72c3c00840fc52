import { execFile } from 'node:child_process'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { createWeaveClient, type WeaveClient } from '@weave/client'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { main } from '../apps/cli/src/main.js'
import { ROOT } from './support/child-processes.js'
import { startWeave, waitForStep, type WeaveProcesses } from './support/weave-processes.js'

// The operator commands against a running Weave: tables for people, --json for scripts, exit
// statuses, and the connection from flags or from WEAVE_URL and WEAVE_TOKEN.

const OPERATOR =
  'graphs:read graphs:write runs:read runs:write approvals:read approvals:decide audit:read'
const TENANT = 't-cli'

const registration = (title: string) => ({
  name: 'gated',
  description: 'Charges after a review.',
  spec: {
    entry: 'prepare',
    steps: {
      prepare: { kind: 'set', values: { total: 'amount * 2' }, next: 'review' },
      review: { kind: 'approval', title, next: 'finish' },
      finish: { kind: 'set', values: { done: 'true' } },
    },
  },
})

describe('weave runs, approvals, graphs and audit verify', () => {
  let weave: WeaveProcesses
  let token: string
  let starter: WeaveClient
  let dir: string

  /** Runs `weave <args>` in this process with --url and --token; returns what it printed. */
  async function weaveCli(...args: string[]) {
    let stdout = ''
    let stderr = ''
    const status = await main([...args, '--url', weave.baseUrl, '--token', token], {
      stdout: (text) => (stdout += text),
      stderr: (text) => (stderr += text),
      env: {},
    })
    return { status, stdout, stderr }
  }

  beforeAll(async () => {
    weave = await startWeave()
    token = await weave.token(TENANT, 'ops', OPERATOR)
    // Runs are started by someone else than the operator who decides them.
    starter = createWeaveClient({
      baseUrl: weave.baseUrl,
      token: await weave.token(TENANT, 'alice', 'runs:read runs:write'),
    })
    dir = await mkdtemp(path.join(tmpdir(), 'weave-cli-'))
  })
  afterAll(async () => {
    await weave?.stop()
    if (dir) await rm(dir, { recursive: true, force: true })
  })

  it('pushes a graph, then a changed one, naming what changed', async () => {
    const file = path.join(dir, 'gated.json')
    await writeFile(file, JSON.stringify(registration('Charge {{ total }}?')))
    const first = await weaveCli('graphs', 'push', file)
    expect(first).toMatchObject({ status: 0, stderr: '' })
    expect(first.stdout).toMatch(/^gated version 1 registered\ndigest [0-9a-f]{64}\n$/)

    await writeFile(file, JSON.stringify(registration('Charge {{ total }} now?')))
    const second = await weaveCli('graphs', 'push', file)
    expect(second.status).toBe(0)
    expect(second.stdout).toContain('gated version 2 registered, replacing version 1\n')
    expect(second.stdout).toContain(
      '  ~ /steps/review/title: "Charge {{ total }}?" -> "Charge {{ total }} now?"\n',
    )

    const again = await weaveCli('graphs', 'push', file, '--json')
    expect(JSON.parse(again.stdout)).toMatchObject({
      name: 'gated',
      version: 2,
      created: false,
      previousVersion: 2,
      changes: [],
    })
  })

  it('lists, shows and approves an approval, and watches its run to the end', async () => {
    const run = await starter.runs.start('gated', { amount: 30 })
    await waitForStep(weave, token, run.id, 'review')

    const runs = await weaveCli('runs', 'list')
    expect(runs.status).toBe(0)
    const [header, ...rows] = runs.stdout.trimEnd().split('\n')
    expect(header).toMatch(/^ID +GRAPH +STATUS +LAST STEP +UPDATED$/)
    expect(rows.find((row) => row.startsWith(run.id))).toMatch(/gated@2 +waiting +review /)
    const listed = JSON.parse(
      (await weaveCli('runs', 'list', '--status', 'waiting', '--json')).stdout,
    )
    expect(listed.items.map((r: { id: string }) => r.id)).toContain(run.id)

    const got = await weaveCli('runs', 'get', run.id)
    expect(got.stdout).toMatch(/^status: +waiting$/m)
    expect(got.stdout).toMatch(/^waiting on: +approval review$/m)

    const approvals = JSON.parse(
      (await weaveCli('approvals', 'list', '--run', run.id, '--json')).stdout,
    )
    expect(approvals.items).toHaveLength(1)
    const approval = approvals.items[0]
    const table = await weaveCli('approvals', 'list')
    expect(table.stdout).toMatch(
      new RegExp(`^${approval.id} +${run.id} +review +pending +Charge 60 now\\?$`, 'm'),
    )
    const shown = await weaveCli('approvals', 'show', approval.id)
    expect(shown.stdout).toMatch(new RegExp(`^material hash: +${approval.materialHash}$`, 'm'))

    // A stale hash is refused and nothing is decided.
    const stale = await weaveCli('approvals', 'approve', approval.id, '--hash', '0'.repeat(64))
    expect(stale.status).toBe(1)
    expect(stale.stderr).toMatch(/^weave approvals approve: 409 material-mismatch: /)

    const approved = await weaveCli(
      'approvals',
      'approve',
      approval.id,
      '--comment',
      'ok',
      '--json',
    )
    expect(approved.status).toBe(0)
    expect(JSON.parse(approved.stdout)).toMatchObject({
      status: 'approved',
      decisions: [{ by: 'ops', decision: 'approve', comment: 'ok' }],
    })

    const watched = await weaveCli('runs', 'watch', run.id)
    expect(watched.status).toBe(0)
    const lines = watched.stdout.trimEnd().split('\n')
    expect(lines[0]).toMatch(/^#1 \S+ run\.queued$/)
    expect(lines).toContainEqual(expect.stringMatching(/^#5 \S+ approval\.requested review$/))
    expect(lines.at(-1)).toBe(`run ${run.id} completed`)

    const events = (await weaveCli('runs', 'watch', run.id, '--json')).stdout
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l))
    expect(events.at(-2)).toMatchObject({ type: 'run.completed' })
    expect(events.at(-1)).toMatchObject({ id: run.id, status: 'completed', state: { done: true } })
  })

  it('forks a run and cancels the fork', async () => {
    const run = await starter.runs.start('gated', { amount: 1 })
    await waitForStep(weave, token, run.id, 'review')
    const forked = await weaveCli(
      'runs',
      'fork',
      run.id,
      '--seq',
      '1',
      '--input',
      '{"amount":2}',
      '--json',
    )
    expect(forked.status).toBe(0)
    const fork = JSON.parse(forked.stdout)
    expect(fork).toMatchObject({ forkedFrom: run.id })

    const cancelled = await weaveCli('runs', 'cancel', fork.id)
    expect(cancelled).toMatchObject({ status: 0, stderr: '' })
    expect(cancelled.stdout).toMatch(new RegExp(`^cancel requested for run ${fork.id} `))
    const watched = await weaveCli('runs', 'watch', fork.id)
    expect(watched.status).toBe(1)
    expect(watched.stdout.trimEnd().split('\n').at(-1)).toBe(`run ${fork.id} cancelled`)
  })

  it('verifies the audit chain', async () => {
    const verified = await weaveCli('audit', 'verify')
    expect(verified.status).toBe(0)
    expect(verified.stdout).toMatch(/^ok: the audit chain holds \(\d+ events checked\)\n$/)
    expect(JSON.parse((await weaveCli('audit', 'verify', '--json')).stdout)).toMatchObject({
      ok: true,
    })
  })

  it('says what went wrong: an unknown run, no token, a bad option', async () => {
    const missing = await weaveCli('runs', 'get', '00000000-0000-4000-8000-000000000000')
    expect(missing.status).toBe(1)
    expect(missing.stderr).toMatch(/^weave runs get: 404 run-not-found: /)

    let stderr = ''
    const noToken = await main(['runs', 'list'], {
      stdout: () => {},
      stderr: (t) => (stderr += t),
      env: {},
    })
    expect(noToken).toBe(2)
    expect(stderr).toContain('a token is needed: --token <token> or WEAVE_TOKEN')

    expect((await weaveCli('runs', 'list', '--status', 'sleeping')).status).toBe(2)
  })

  it('reads the connection from WEAVE_URL and WEAVE_TOKEN, as a process', async () => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', 'apps/cli/src/main.ts', 'audit', 'verify', '--json'],
      { cwd: ROOT, env: { ...process.env, WEAVE_URL: weave.baseUrl, WEAVE_TOKEN: token } },
    )
    expect(JSON.parse(stdout)).toMatchObject({ ok: true, checked: expect.any(Number) })
  })
})
