import { mintDevToken } from '@weave/api'
import pg from 'pg'
import { concurrentSlice } from '../../kernel/timing.js'
import { apiClient, pollRun, type RunView } from '../api-client.js'
import { analyzeDatabase } from '../analyze.js'
import { startBenchPostgres } from '../private-postgres.js'
import { JWT_ISSUER, JWT_SECRET, startWeave } from '../weave-processes.js'
import { LINEAR_GRAPH, linearSpec, runInput } from '../workload.js'

const log = (l: string) => process.stderr.write(l + '\n')
const cluster = await startBenchPostgres()
try {
  const weave = await startWeave({ serverUrl: cluster.url, redisUrl: 'redis://127.0.0.1:6379', workers: 1, workerConcurrency: 32, log: () => undefined })
  try {
    const token = await mintDevToken({ secret: JWT_SECRET, tenant: 'bench', subject: 's', scopes: ['graphs:read', 'graphs:write', 'runs:read', 'runs:write'], audience: 'weave', issuer: JWT_ISSUER, expiresIn: '1h' })
    const api = apiClient(weave.baseUrl, token)
    await api.call('POST', '/v1/graphs', 201, { name: LINEAR_GRAPH, spec: { ...linearSpec(), ...(process.env.HISTORY ? { history: Number(process.env.HISTORY) } : {}) } })
    const one = async () => {
      const r = await api.call<RunView>('POST', '/v1/runs', 202, { graph: LINEAR_GRAPH, input: runInput() })
      await pollRun(api, r.id, (x) => x.status === 'completed', { pollMs: 10, assertRunning: () => weave.assertRunning() })
    }
    const db = new pg.Client({ connectionString: weave.cpu.databaseUrl })
    await db.connect()
    const wal = async () => (await db.query('select wal_records::float8 r, wal_fpi::float8 f, wal_bytes::float8 b from pg_stat_wal')).rows[0]
    await concurrentSlice(one, 5000, 16)
    await analyzeDatabase(weave.cpu.databaseUrl)
    for (let i = 0; i < Number(process.env.SLICES ?? 3); i++) {
      const a = await wal()
      const s = await concurrentSlice(one, 10000, 16)
      const b = await wal()
      log(`slice ${i}: ${(s.ops / (s.ms / 1000)).toFixed(1)} runs/s, WAL ${((b.b - a.b) / s.ops / 1024).toFixed(1)} KB/run, FPI ${((b.f - a.f) / s.ops).toFixed(2)}/run, records ${((b.r - a.r) / s.ops).toFixed(1)}/run`)
    }
    await db.end()
  } finally {
    await weave.stop()
  }
} finally {
  await cluster.remove()
}
