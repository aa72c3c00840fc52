import { writeFile } from 'node:fs/promises'
import os from 'node:os'
import { mintDevToken } from '@weave/api'
import { apiClient } from './api-client.js'
import type { BenchContext } from './context.js'
import { provenance } from './provenance.js'
import { scenarioApproval } from './scenario-approval.js'
import { scenarioThroughput } from './scenario-throughput.js'
import { parseArgs, type Settings } from './settings.js'
import { JWT_ISSUER, JWT_SECRET, startWeave, type BenchWeave } from './weave-processes.js'
import { runInput } from './workload.js'

const RESULTS = new URL('./RESULTS.md', import.meta.url)
const TENANT = 'bench'
const SCOPES = ['graphs:read', 'graphs:write', 'runs:read', 'runs:write', 'approvals:read']

function log(line: string): void {
  process.stderr.write(`${line}\n`)
}

function commandLine(args: readonly string[]): string {
  if (process.env.npm_lifecycle_event === 'e2e' && args.length === 0) return 'npm run bench:e2e'
  return ['node --import tsx e2e/run.ts', ...args].join(' ') + '   (in bench/)'
}

function load(): string {
  return os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(' / ')
}

function token(subject: string, scopes: readonly string[]): Promise<string> {
  return mintDevToken({
    secret: JWT_SECRET,
    tenant: TENANT,
    subject,
    scopes,
    audience: 'weave',
    issuer: JWT_ISSUER,
    expiresIn: '1h',
  })
}

function settingsLines(s: Settings, weave: BenchWeave): string[] {
  const env = Object.entries(weave.settings)
    .filter(([k]) => k !== 'PORT' && k !== 'HOST')
    .map(([k, v]) => `${k}=${v}`)
    .join(', ')
  return [
    `- Weave: 1 \`weave api\` and ${s.workers} \`weave worker\` processes (through the CLI), database \`${weave.database}\` (dropped after), ${env}`,
    `- workload: ${JSON.stringify(runInput()).length} bytes of JSON input; every \`set\` step adds one small field; history of checkpoints: Weave's default (all)`,
    `- scenario 1: warm-up ${s.warmupMs / 1000} s with ${s.clients} clients (discarded), then ${s.throughputMs / 1000} s with ${s.clients} clients and ${s.singleMs / 1000} s with 1; completion seen by polling \`GET /v1/runs/{id}\` every ${s.pollMs} ms`,
    `- scenario 2: ${s.approvalSerialRuns + s.approvalRuns} runs started ${s.approvalConcurrency} at once until each waits; ${s.approvalSerialRuns} decided one at a time, then ${s.approvalRuns} decided ${s.approvalConcurrency} at once; completion polled every ${s.pollMs} ms`,
  ]
}

async function main(): Promise<void> {
  const args = process.argv.slice(2)
  const settings = parseArgs(args)
  const started = new Date()
  const loadBefore = load()
  const measured = await provenance()
  const weave = await startWeave({
    serverUrl: process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
    redisUrl: process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379',
    workers: settings.workers,
    workerConcurrency: settings.workerConcurrency,
    log,
  })
  let sections: string[]
  try {
    const ctx: BenchContext = {
      starter: apiClient(weave.baseUrl, await token('bench-starter', SCOPES)),
      approver: apiClient(weave.baseUrl, await token('bench-approver', ['approvals:decide'])),
      settings,
      cpu: weave.cpu,
      assertRunning: () => weave.assertRunning(),
      log,
    }
    sections = [await scenarioThroughput(ctx), await scenarioApproval(ctx)]
  } finally {
    await weave.stop()
  }

  const seconds = ((Date.now() - started.getTime()) / 1000).toFixed(0)
  const cpus = os.cpus()
  const markdown = [
    '# bench/e2e results',
    '',
    `- date: ${started.toISOString()}`,
    `- command: \`${commandLine(args)}\` (${seconds} s)`,
    `- measured: ${measured}`,
    `- node ${process.version}, PostgreSQL ${weave.serverVersion}, Redis at ${new URL(process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379').host}`,
    `- machine: ${cpus.length} cores (${cpus[0]?.model.trim() ?? 'unknown CPU'}), ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB, ${os.platform()} ${os.release()}; the benchmark's client, Weave's processes, Postgres and Redis all run on it`,
    `- load average (1 / 5 / 15 min) at start ${loadBefore}, at end ${load()}: the machine is shared, so absolute figures vary between runs`,
    ...settingsLines(settings, weave),
    '',
    ...sections.flatMap((s) => [s, '']),
  ].join('\n')
  process.stdout.write(markdown)
  if (!settings.quick) {
    await writeFile(RESULTS, markdown)
    log(`written to ${RESULTS.pathname}`)
  }
}

main().catch((err: unknown) => {
  log(err instanceof Error ? (err.stack ?? err.message) : String(err))
  process.exitCode = 1
})
