import { spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { existsSync } from 'node:fs'
import { mkdir, readFile } from 'node:fs/promises'
import { createServer } from 'node:net'
import { fileURLToPath } from 'node:url'
import axe from 'axe-core'
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { expectJson } from './support/expect-http.js'
import {
  startWeave,
  waitForRun,
  waitForStep,
  waitUntil,
  type WeaveProcesses,
} from './support/weave-processes.js'

// The approval inbox in a real browser: Debian's Chromium driven by playwright-core, against
// Weave's API and worker processes running the README's support agent with its scripted model.
// Screenshots are kept in test-results/inbox/ (gitignored) for whoever reads a CI run.

const ROOT = fileURLToPath(new URL('../', import.meta.url))
const CHROMIUM = '/usr/bin/chromium'
const ARTIFACTS = `${ROOT}test-results/inbox`
const HAS_CHROMIUM = existsSync(CHROMIUM)
if (!HAS_CHROMIUM && process.env.CI) {
  throw new Error(
    `${CHROMIUM} is missing: CI must run the inbox browser tests (apt-get install chromium)`,
  )
}
if (!HAS_CHROMIUM) {
  console.warn(
    `skipping the inbox browser tests: ${CHROMIUM} is missing (apt-get install -y chromium)`,
  )
}

const ALICE_SCOPES = 'graphs:read graphs:write runs:read runs:write'
const BOB_SCOPES = 'runs:read approvals:read approvals:decide'
const INPUT = {
  customer: 'ada',
  orderId: 'A-1001',
  complaint: 'My order arrived damaged. Refund it and close my account.',
}

async function freePort(): Promise<number> {
  const server = createServer()
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const address = server.address()
  server.close()
  await once(server, 'close')
  if (address === null || typeof address === 'string') throw new Error('no port')
  return address.port
}

/** The example's scripted model on a free port. */
async function startModel(): Promise<{ url: string; child: ChildProcess }> {
  const port = await freePort()
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', 'examples/support-agent/model-server.ts', String(port)],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] },
  )
  let output = ''
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()))
  await waitUntil(() => output.includes('scripted model on'), 20_000, 'the scripted model')
  return { url: `http://127.0.0.1:${port}/v1`, child }
}

describe.skipIf(!HAS_CHROMIUM)('the approval inbox in a browser', () => {
  let weave: WeaveProcesses
  let model: { child: ChildProcess }
  let browser: Browser
  let alice: string
  let bob: string
  let notifier: string

  beforeAll(async () => {
    await mkdir(ARTIFACTS, { recursive: true })
    const started = await startModel()
    model = started
    // The worker starts once the API is up: booting both at once on a loaded machine can take
    // longer than the API's start-up deadline.
    weave = await startWeave({
      workers: 0,
      env: {
        WEAVE_HANDLERS: 'examples/support-agent/handlers.ts',
        WEAVE_LLM_BASE_URL: started.url,
      },
    })
    await weave.startWorker()
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
      ],
    })
    alice = await weave.token('acme', 'alice', ALICE_SCOPES)
    bob = await weave.token('acme', 'bob', BOB_SCOPES)
    notifier = await weave.token('acme', 'notifier', 'approvals:link')
    const graph = JSON.parse(await readFile(`${ROOT}examples/support-agent/graph.json`, 'utf8'))
    expectJson(await weave.call('POST', '/v1/graphs', { token: alice, body: graph }), 201)
  })
  afterAll(async () => {
    await browser?.close()
    model?.child.kill('SIGTERM')
    await weave?.stop()
  })

  /** A support-agent run waiting on a person for its refund; returns the run and approval ids. */
  async function waitingRefund(): Promise<{ runId: string; approvalId: string }> {
    const started = await weave.call('POST', '/v1/runs', {
      token: alice,
      body: { graph: 'support-agent', input: INPUT },
    })
    const runId: string = expectJson(started, 202).id
    // The first run also waits for the worker to load the handlers and reach the model.
    const run = await waitForStep(weave, alice, runId, 'support', 120_000)
    return { runId, approvalId: run.pendingApprovals[0] }
  }

  /** A page link addressed to Bob. */
  async function linkFor(approvalId: string): Promise<string> {
    const issued = await weave.call('POST', `/v1/approvals/${approvalId}/links`, {
      token: notifier,
      body: { recipient: 'bob' },
    })
    const path = new URL(expectJson(issued, 201).url).pathname
    return `${weave.baseUrl}${path}`
  }

  /** A fresh browser context; `problems` collects CSP violations and script errors. */
  async function open(
    options: { javaScript?: boolean } = {},
  ): Promise<{ context: BrowserContext; page: Page; problems: string[] }> {
    const context = await browser.newContext({ javaScriptEnabled: options.javaScript ?? true })
    const page = await context.newPage()
    const problems: string[] = []
    page.on('console', (m) => {
      // A 4xx page (a used link is 409) or the favicon's 404 is logged too; only the CSP's
      // refusals are problems.
      if (m.type() === 'error' && /Content Security Policy|Refused to/.test(m.text())) {
        problems.push(m.text())
      }
    })
    page.on('pageerror', (err) => problems.push(err.message))
    return { context, page, problems }
  }

  async function expectAccessible(page: Page, name: string): Promise<void> {
    // Evaluated through the driver, not injected as a page script: the page's CSP forbids both.
    await page.evaluate(axe.source)
    const result = await page.evaluate(() =>
      (globalThis as any).axe.run((globalThis as any).document, { resultTypes: ['violations'] }),
    )
    const serious = (result.violations as any[]).filter((v) =>
      ['serious', 'critical'].includes(v.impact),
    )
    expect(
      serious.map((v) => `${name}: ${v.id} ${v.nodes.map((n: any) => n.target).join(' ')}`),
    ).toEqual([])
  }

  async function snap(page: Page, name: string): Promise<void> {
    await page.screenshot({ path: `${ARTIFACTS}/${name}.png`, fullPage: true })
  }

  it('opens a link without JavaScript, shows the exact call, approves it, and the run completes', async () => {
    const { runId, approvalId } = await waitingRefund()
    const url = await linkFor(approvalId)
    const { context, page, problems } = await open({ javaScript: false })
    await page.goto(url)
    await expect.poll(() => page.locator('h1').textContent()).toBe('Refund 250 for order A-1001?')
    const args = page.getByRole('table', { name: 'The call’s arguments' })
    await expect
      .poll(() => args.locator('tbody tr').allInnerTexts())
      .toEqual(['amount\t250', 'orderId\tA-1001'])
    expect(await page.locator('code.tool').textContent()).toBe('refund')
    expect(await page.content()).not.toContain(new URL(url).pathname.split('/').pop())
    await snap(page, 'link-page')
    await page.getByRole('button', { name: 'Approve', exact: true }).click()
    await expect
      .poll(() => page.getByRole('status').first().textContent())
      .toContain('Your approval is recorded: the approval is approved')
    await waitForRun(weave, alice, runId, ['completed'])
    await page.reload()
    expect(await page.getByRole('alert').textContent()).toContain('This link has already been used')
    await expect.poll(() => page.locator('dl.facts').first().textContent()).toContain('(completed)')
    await snap(page, 'link-page-used')
    expect(problems).toEqual([])
    await context.close()
  })

  it('rejects with a comment, which the agent is told, and the refund never runs', async () => {
    const { runId, approvalId } = await waitingRefund()
    const { context, page } = await open({ javaScript: false })
    await page.goto(await linkFor(approvalId))
    await page.getByLabel('Comment').fill('Ask the warehouse for photos first.')
    await page.getByRole('button', { name: 'Reject', exact: true }).click()
    await expect
      .poll(() => page.getByRole('status').first().textContent())
      .toContain('Your rejection is recorded')
    const done = await waitForRun(weave, alice, runId, ['completed'])
    const refund = done.state.support.calls.find((c: any) => c.tool === 'refund')
    expect(refund).toMatchObject({ outcome: 'rejected' })
    expect(refund.decision.decisions[0]).toMatchObject({
      by: 'bob',
      decision: 'reject',
      comment: 'Ask the warehouse for photos first.',
    })
    await context.close()
  })

  it('signs in with a pasted token, sees an approval arrive live, edits the call and the edited call runs', async () => {
    const { context, page, problems } = await open()
    await page.goto(`${weave.baseUrl}/inbox`)
    await page.getByLabel('Bearer token').fill(bob)
    await page.getByRole('button', { name: 'Sign in' }).click()
    await expect.poll(() => page.locator('#session').textContent()).toContain('Signed in as bob')
    expect(page.url()).toBe(`${weave.baseUrl}/inbox`)
    expect(await page.content()).not.toContain(bob)
    const { runId, approvalId } = await waitingRefund()
    // The list polls: the new approval appears without a reload.
    const row = page.locator(`li[data-approval-id="${approvalId}"]`)
    await row.waitFor({ timeout: 30_000 })
    await expectAccessible(page, 'list')
    await snap(page, 'list')
    await row.getByRole('link').click()
    await page.getByLabel('amount').waitFor()
    await expectAccessible(page, 'approval')
    await page.getByLabel('amount').fill('200')
    await page.getByRole('button', { name: 'Approve with these arguments' }).click()
    await expect
      .poll(() => page.locator('#live').textContent())
      .toContain('Your decision is recorded: the approval is approved')
    const done = await waitForRun(weave, alice, runId, ['completed'])
    const refund = done.state.support.calls.find((c: any) => c.tool === 'refund')
    expect(refund).toMatchObject({
      outcome: 'ran',
      editedArguments: { orderId: 'A-1001', amount: 200 },
    })
    expect(
      done.state.support.messages.some(
        (m: any) => m.role === 'tool' && String(m.content).includes('"amount":200'),
      ),
    ).toBe(true)
    await expect
      .poll(() => page.locator('ul.changes').textContent())
      .toMatch(/amount: 250\s*→\s*200/)
    await snap(page, 'approval-edited')
    expect(problems).toEqual([])
    await context.close()
  })

  it('refuses a decision from a page whose approval changed after it was shown', async () => {
    const { approvalId } = await waitingRefund()
    const { context, page } = await open({ javaScript: false })
    await page.goto(await linkFor(approvalId))
    // Weave never rewrites an approval's material; the owner connection does, as the stale
    // case the materialHash guards against: what the page shows is no longer what is asked.
    await weave.owner.query(
      `update approvals set title = 'Refund 9000 for order A-1001?', material_hash = $1 where id = $2`,
      ['0'.repeat(64), approvalId],
    )
    await page.getByRole('button', { name: 'Approve', exact: true }).click()
    await expect
      .poll(() => page.getByRole('alert').textContent())
      .toContain('has changed since this page was loaded')
    expect(await page.locator('h1').textContent()).toBe('Refund 9000 for order A-1001?')
    expect(await page.getByRole('button', { name: 'Approve', exact: true }).count()).toBe(0)
    const approval = (await weave.call('GET', `/v1/approvals/${approvalId}`, { token: bob })).body
    expect(approval).toMatchObject({ status: 'pending', decisions: [] })
    await snap(page, 'stale-page')
    await context.close()
  })

  it('refuses a link used a second time, from a page opened before the first use', async () => {
    const { runId, approvalId } = await waitingRefund()
    const url = await linkFor(approvalId)
    const { context, page } = await open({ javaScript: false })
    const second = await context.newPage()
    await page.goto(url)
    await second.goto(url)
    await page.getByRole('button', { name: 'Approve', exact: true }).click()
    await expect
      .poll(() => page.getByRole('status').first().textContent())
      .toContain('Your approval is recorded')
    await second.getByRole('button', { name: 'Reject', exact: true }).click()
    await expect
      .poll(() => second.getByRole('alert').textContent())
      .toContain('This link has already been used')
    await waitForRun(weave, alice, runId, ['completed'])
    const approval = (await weave.call('GET', `/v1/approvals/${approvalId}`, { token: bob })).body
    expect(approval.decisions.map((d: any) => [d.by, d.decision])).toEqual([['bob', 'approve']])
    await context.close()
  })

  it('approves with the keyboard alone, in a sensible focus order, and passes an accessibility check', async () => {
    const { runId, approvalId } = await waitingRefund()
    const { context, page } = await open()
    await page.goto(await linkFor(approvalId))
    await expectAccessible(page, 'link page')
    const order: string[] = []
    for (let i = 0; i < 10 && order.at(-1) !== 'BUTTON Approve'; i++) {
      await page.keyboard.press('Tab')
      order.push(
        await page.evaluate(() => {
          // Runs in the page, where the DOM is (this file is compiled without the DOM's types).
          const el = (globalThis as any).document.activeElement
          return `${el.tagName} ${el.textContent?.trim() || el.getAttribute('name') || ''}`.trim()
        }),
      )
    }
    expect(order).toEqual([
      'A Skip to content',
      'A Weave inbox',
      'TEXTAREA comment',
      'BUTTON Approve',
    ])
    await page.keyboard.press('Enter')
    await expect
      .poll(() => page.getByRole('status').first().textContent())
      .toContain('Your approval is recorded')
    await expectAccessible(page, 'link page after deciding')
    await waitForRun(weave, alice, runId, ['completed'])
    await context.close()
  })
})
