/**
 * The floor: what a hand-written REST + queue + Postgres loop does with the benchmark's calls.
 * One process serves `POST /v1/graphs`, `POST /v1/runs`, `GET /v1/runs/{id}` and
 * `POST /v1/approvals/{id}/decision` with node:http, checks the bearer token (HS256, the same
 * tokens Weave gets), and executes runs from a BullMQ queue: each step is evaluated in memory and
 * written with one UPDATE of the run. It keeps no events, audit log, checkpoint history, leases
 * or webhooks: it is the least work the same answers need, to measure Weave against.
 *
 * Environment: PORT, FLOOR_DATABASE_URL, REDIS_URL, FLOOR_QUEUE_PREFIX, FLOOR_JWT_SECRET,
 * FLOOR_JWT_ISSUER, FLOOR_CONCURRENCY.
 */
import { createHmac, randomUUID, timingSafeEqual } from 'node:crypto'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import { Queue, Worker, type Job } from 'bullmq'
import jsonata from 'jsonata'
import pg from 'pg'

type Json = null | boolean | number | string | Json[] | { [key: string]: Json }
type State = Record<string, Json>

interface SetStep {
  kind: 'set'
  values: Record<string, jsonata.Expression>
  next: string | null
}
interface ApprovalStep {
  kind: 'approval'
  separationOfDuties: boolean
  next: string | null
}
type Step = SetStep | ApprovalStep
interface Graph {
  version: number
  entry: string
  steps: Map<string, Step>
}

interface Caller {
  tenant: string
  subject: string
}

const env = process.env
const port = Number(env.PORT ?? 3100)
const secret = env.FLOOR_JWT_SECRET ?? ''
const issuer = env.FLOOR_JWT_ISSUER ?? ''
const prefix = env.FLOOR_QUEUE_PREFIX ?? 'floor'
const concurrency = Number(env.FLOOR_CONCURRENCY ?? 32)
const redisUrl = new URL(env.REDIS_URL ?? 'redis://127.0.0.1:6379')
const connection = { host: redisUrl.hostname, port: Number(redisUrl.port || 6379) }

const pool = new pg.Pool({ connectionString: env.FLOOR_DATABASE_URL, max: 20 })
const queue = new Queue('runs', { connection, prefix })
// Compiled graphs by `tenant/name` (latest version) and `tenant/name/version`.
const graphs = new Map<string, Graph>()

const SCHEMA = `
CREATE TABLE IF NOT EXISTS graphs (
  tenant text NOT NULL, name text NOT NULL, version int NOT NULL, spec jsonb NOT NULL,
  PRIMARY KEY (tenant, name, version));
CREATE TABLE IF NOT EXISTS runs (
  id uuid PRIMARY KEY, tenant text NOT NULL, graph text NOT NULL, version int NOT NULL,
  started_by text NOT NULL, status text NOT NULL, step text, state jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(), finished_at timestamptz);
CREATE TABLE IF NOT EXISTS approvals (
  id uuid PRIMARY KEY, tenant text NOT NULL, run_id uuid NOT NULL, step text NOT NULL,
  status text NOT NULL, settled_at timestamptz);
CREATE INDEX IF NOT EXISTS approvals_run ON approvals (run_id) WHERE status = 'pending';`

class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message)
  }
}

function b64json(part: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(part, 'base64url').toString('utf8')) as Record<string, unknown>
}

function authenticate(req: IncomingMessage): Caller {
  const header = req.headers.authorization ?? ''
  const parts = header.startsWith('Bearer ') ? header.slice(7).split('.') : []
  if (parts.length !== 3) throw new HttpError(401, 'bearer token required')
  const [head, body, signature] = parts as [string, string, string]
  const expected = createHmac('sha256', secret).update(`${head}.${body}`).digest()
  const given = Buffer.from(signature, 'base64url')
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    throw new HttpError(401, 'bad signature')
  }
  if (b64json(head).alg !== 'HS256') throw new HttpError(401, 'bad algorithm')
  const claims = b64json(body)
  const now = Date.now() / 1000
  if (typeof claims.exp !== 'number' || claims.exp < now) throw new HttpError(401, 'expired')
  if (claims.iss !== issuer || claims.aud !== 'weave') throw new HttpError(401, 'bad issuer')
  if (typeof claims.tid !== 'string' || typeof claims.sub !== 'string') {
    throw new HttpError(401, 'no tenant')
  }
  return { tenant: claims.tid, subject: claims.sub }
}

function compile(version: number, spec: Record<string, unknown>): Graph {
  const steps = new Map<string, Step>()
  for (const [name, raw] of Object.entries(spec.steps as Record<string, Record<string, unknown>>)) {
    const next = (raw.next as string | null | undefined) ?? null
    if (raw.kind === 'set') {
      const values = Object.fromEntries(
        Object.entries(raw.values as Record<string, string>).map(([k, e]) => [k, jsonata(e)]),
      )
      steps.set(name, { kind: 'set', values, next })
    } else if (raw.kind === 'approval') {
      steps.set(name, { kind: 'approval', separationOfDuties: !!raw.separationOfDuties, next })
    } else {
      throw new HttpError(422, `step ${name}: kind ${String(raw.kind)} is not supported`)
    }
  }
  return { version, entry: spec.entry as string, steps }
}

async function graphOf(tenant: string, name: string, version?: number): Promise<Graph> {
  const key = version === undefined ? `${tenant}/${name}` : `${tenant}/${name}/${version}`
  const cached = graphs.get(key)
  if (cached) return cached
  const { rows } = await pool.query<{ version: number; spec: Record<string, unknown> }>(
    `SELECT version, spec FROM graphs WHERE tenant = $1 AND name = $2
       AND ($3::int IS NULL OR version = $3) ORDER BY version DESC LIMIT 1`,
    [tenant, name, version ?? null],
  )
  const row = rows[0]
  if (!row) throw new HttpError(404, `graph ${name} not found`)
  const graph = compile(row.version, row.spec)
  graphs.set(key, graph)
  return graph
}

const RUN_VIEW = `SELECT r.id, r.status, r.state, r.created_at, r.finished_at,
  coalesce((SELECT array_agg(a.id) FROM approvals a WHERE a.run_id = r.id AND a.status = 'pending'),
    '{}') AS pending
  FROM runs r WHERE r.id = $1 AND r.tenant = $2`

interface RunRow {
  id: string
  status: string
  state: State
  created_at: Date
  finished_at: Date | null
  pending: string[]
}

function runView(r: RunRow): Record<string, unknown> {
  return {
    id: r.id,
    status: r.status,
    state: r.state,
    error: null,
    pendingApprovals: r.pending,
    createdAt: r.created_at.toISOString(),
    finishedAt: r.finished_at?.toISOString() ?? null,
  }
}

async function readBody(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = []
  for await (const chunk of req) chunks.push(chunk as Buffer)
  try {
    const value = JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown
    if (typeof value !== 'object' || value === null) throw new Error('not an object')
    return value as Record<string, unknown>
  } catch {
    throw new HttpError(400, 'body must be a JSON object')
  }
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

async function route(req: IncomingMessage, caller: Caller): Promise<[number, unknown]> {
  const url = req.url ?? '/'
  if (req.method === 'GET' && url.startsWith('/v1/runs/')) {
    const id = url.slice('/v1/runs/'.length)
    if (!UUID.test(id)) throw new HttpError(404, 'no such run')
    const { rows } = await pool.query<RunRow>({
      name: 'run_view',
      text: RUN_VIEW,
      values: [id, caller.tenant],
    })
    if (!rows[0]) throw new HttpError(404, 'no such run')
    return [200, runView(rows[0])]
  }
  if (req.method === 'POST' && url === '/v1/runs') {
    const body = await readBody(req)
    if (typeof body.graph !== 'string' || typeof body.input !== 'object' || body.input === null) {
      throw new HttpError(400, 'graph and input are required')
    }
    const graph = await graphOf(caller.tenant, body.graph)
    const { rows } = await pool.query<RunRow>({
      name: 'run_insert',
      text: `INSERT INTO runs (id, tenant, graph, version, started_by, status, step, state)
        VALUES ($1, $2, $3, $4, $5, 'queued', $6, $7)
        RETURNING id, status, state, created_at, finished_at, '{}'::uuid[] AS pending`,
      values: [
        randomUUID(),
        caller.tenant,
        body.graph,
        graph.version,
        caller.subject,
        graph.entry,
        body.input,
      ],
    })
    const run = rows[0]!
    await queue.add('run', { id: run.id, tenant: caller.tenant }, { removeOnComplete: true })
    return [202, runView(run)]
  }
  if (req.method === 'POST' && url === '/v1/graphs') {
    const body = await readBody(req)
    if (typeof body.name !== 'string' || typeof body.spec !== 'object' || body.spec === null) {
      throw new HttpError(400, 'name and spec are required')
    }
    const spec = body.spec as Record<string, unknown>
    compile(0, spec)
    const { rows } = await pool.query<{ version: number }>(
      `INSERT INTO graphs (tenant, name, version, spec)
        SELECT $1, $2, coalesce(max(version), 0) + 1, $3 FROM graphs WHERE tenant = $1 AND name = $2
        RETURNING version`,
      [caller.tenant, body.name, spec],
    )
    const version = rows[0]!.version
    graphs.set(`${caller.tenant}/${body.name}`, compile(version, spec))
    return [201, { name: body.name, version }]
  }
  const decision = /^\/v1\/approvals\/([0-9a-f-]{36})\/decision$/.exec(url)
  if (req.method === 'POST' && decision) {
    const body = await readBody(req)
    if (body.decision !== 'approve' && body.decision !== 'reject') {
      throw new HttpError(400, 'decision is approve or reject')
    }
    const status = body.decision === 'approve' ? 'approved' : 'rejected'
    // The separation of duties is checked against the run's starter in the same statement.
    const { rows } = await pool.query<{ id: string; run_id: string; settled_at: Date }>({
      name: 'approval_decide',
      text: `UPDATE approvals a SET status = $3, settled_at = now()
        FROM runs r WHERE a.id = $1 AND a.tenant = $2 AND a.status = 'pending'
          AND r.id = a.run_id AND r.started_by <> $4
        RETURNING a.id, a.run_id, a.settled_at`,
      values: [decision[1], caller.tenant, status, caller.subject],
    })
    const row = rows[0]
    if (!row) throw new HttpError(409, 'not pending, or decided by the run starter')
    await queue.add(
      'run',
      {
        id: row.run_id,
        tenant: caller.tenant,
        decision: { status, comment: body.comment ?? null },
      },
      { removeOnComplete: true },
    )
    return [200, { id: row.id, status, settledAt: row.settled_at.toISOString() }]
  }
  throw new HttpError(404, 'not found')
}

async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
  let status: number
  let payload: unknown
  try {
    ;[status, payload] =
      req.url === '/readyz' ? [200, { status: 'ready' }] : await route(req, authenticate(req))
  } catch (err) {
    status = err instanceof HttpError ? err.status : 500
    payload = { title: err instanceof Error ? err.message : String(err) }
  }
  const text = JSON.stringify(payload)
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
  })
  res.end(text)
}

interface RunJob {
  id: string
  tenant: string
  decision?: { status: string; comment: Json }
}

async function execute(job: Job<RunJob>): Promise<void> {
  const { id, tenant, decision } = job.data
  const { rows } = await pool.query<{
    graph: string
    version: number
    status: string
    step: string
    state: State
  }>({
    name: 'run_load',
    text: 'SELECT graph, version, status, step, state FROM runs WHERE id = $1 AND tenant = $2',
    values: [id, tenant],
  })
  const run = rows[0]
  if (!run || run.status === 'completed') return
  const graph = await graphOf(tenant, run.graph, run.version)
  let state = run.state
  let name: string | null = run.step
  if (decision) {
    const approval = graph.steps.get(name)
    if (run.status !== 'waiting' || approval?.kind !== 'approval') return
    state = { ...state, [name]: decision }
    name = approval.next
  }
  while (name !== null) {
    const step: Step | undefined = graph.steps.get(name)
    if (!step) throw new Error(`run ${id}: no step ${name}`)
    if (step.kind === 'approval') {
      await pool.query({
        name: 'run_wait',
        text: `WITH w AS (UPDATE runs SET status = 'waiting', step = $3, state = $4
            WHERE id = $1 AND tenant = $2)
          INSERT INTO approvals (id, tenant, run_id, step, status)
            VALUES ($5, $2, $1, $3, 'pending')`,
        values: [id, tenant, name, state, randomUUID()],
      })
      return
    }
    const values: State = {}
    for (const [key, expression] of Object.entries(step.values)) {
      values[key] = (await expression.evaluate(state)) as Json
    }
    state = { ...state, ...values }
    name = step.next
    await pool.query({
      name: 'run_step',
      text: `UPDATE runs SET state = $3, step = $4,
          status = CASE WHEN $4::text IS NULL THEN 'completed' ELSE 'running' END,
          finished_at = CASE WHEN $4::text IS NULL THEN now() END
        WHERE id = $1 AND tenant = $2`,
      values: [id, tenant, state, name],
    })
  }
}

async function main(): Promise<void> {
  await pool.query(SCHEMA)
  const worker = new Worker<RunJob>('runs', execute, { connection, prefix, concurrency })
  const server = createServer((req, res) => void handle(req, res))
  server.keepAliveTimeout = 65_000
  server.listen(port, '127.0.0.1')
  const stop = (): void => {
    server.close()
    void Promise.allSettled([worker.close(), queue.close()])
      .then(() => pool.end())
      .finally(() => process.exit(0))
  }
  process.once('SIGTERM', stop)
  process.once('SIGINT', stop)
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`)
  process.exit(1)
})
