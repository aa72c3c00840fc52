import { createHash } from 'node:crypto'
import { FIELD_NAMES, STEP_NAMES } from '../kernel/state.js'
import { LINEAR_GRAPH, linearSpec, runInput } from './workload.js'

/** The tenant the driver's runs belong to. */
export const DRIVER_TENANT = 'bench'

// Where a checkpoint's text holds its run's id; the driver puts each run's own in its place.
const RUN_ID = '@run@'

/** A SQL string literal. */
function literal(text: string): string {
  return `'${text.replaceAll("'", "''")}'`
}

/**
 * The text of the checkpoint the worker writes after step `seq` of the linear graph: the kernel's
 * envelope around the input and the fields of the steps so far (bench/kernel/state.ts).
 */
function checkpointText(seq: number): string {
  const state: Record<string, unknown> = { ...runInput() }
  for (let i = 1; i <= seq; i++) {
    state[FIELD_NAMES[i - 1]!] = { done: true, index: i, note: `step ${i} finished` }
  }
  return JSON.stringify({
    schema_version: 1,
    run_id: RUN_ID,
    graph: LINEAR_GRAPH,
    seq,
    last_step: STEP_NAMES[seq - 1],
    status: 'step_done',
    state,
    saved_at: '2026-12-07T08:52:22.009Z',
  })
}

/**
 * Registers the linear graph for the driver's tenant: the rows `POST /v1/graphs` writes, with a
 * digest of the spec's text (the driver passes on whatever digest the version holds).
 */
export function registerGraphSql(): string {
  const spec = JSON.stringify(linearSpec())
  const digest = createHash('sha256').update(spec).digest('hex')
  const t = literal(DRIVER_TENANT)
  const g = literal(LINEAR_GRAPH)
  return `
    INSERT INTO tenants (id) VALUES (${t});
    INSERT INTO graphs (tenant_id, name) VALUES (${t}, ${g});
    INSERT INTO graph_versions (tenant_id, graph_name, version, spec, digest, created_by)
    VALUES (${t}, ${g}, 1, ${literal(spec)}::jsonb, ${literal(digest)}, 'bench-author');`
}

/** How many of a run's calls the driver makes: Weave's own counts unless a probe asks for more. */
export interface DriverCalls {
  /** `weave_save_step` calls per run, the last completing it; at least the graph's five steps. */
  stepWrites: number
  /** `weave_read_run` calls per run, after it completed. */
  reads: number
}

/** A run's calls as Weave makes them for the linear graph, polled twice. */
export const WEAVE_CALLS: DriverCalls = { stepWrites: STEP_NAMES.length, reads: 2 }

/**
 * Checks counts of calls the driver can make.
 * @throws RangeError for fewer step writes than the graph's steps, or a negative count of reads
 */
export function assertDriverCalls(calls: DriverCalls): void {
  if (!Number.isInteger(calls.stepWrites) || calls.stepWrites < STEP_NAMES.length) {
    throw new RangeError(`a run needs at least ${STEP_NAMES.length} step writes`)
  }
  if (!Number.isInteger(calls.reads) || calls.reads < 0) {
    throw new RangeError('the reads per run must be a whole number, 0 or more')
  }
}

/**
 * `bench_runs(n)`: n runs of the linear graph, each with the calls Weave's API and worker make of
 * Postgres for it, in their order and with their arguments' shapes: `weave_start_run` (the 2 KB
 * input, the audit event), `weave_claim_run`, five `weave_save_step` (the latest and the history
 * checkpoint rows, the step's event; the last completes the run), two `weave_read_run` (a client
 * polling it), and `weave_chain_audit` every second run (the bench's rate is about one call per
 * two runs). Each call's trace parent is set first, as the workers' statements do, and each call
 * commits on its own, as each of Weave's statements is its own transaction: what Postgres sets up
 * once per transaction (a function's simple expressions, the foreign key checks an update of a
 * row inserted by the same transaction repeats) and the commit itself are counted as they happen.
 *
 * `calls` adds step writes or reads to each run, to count one call's cost as the difference: step
 * writes past the graph's five write its last checkpoint's state again, each under the next seq.
 * @throws RangeError for fewer step writes than the graph's steps, or a negative count of reads
 */
export function driverSql(calls: DriverCalls = WEAVE_CALLS): string {
  assertDriverCalls(calls)
  const values = STEP_NAMES.map((_, i) => literal(checkpointText(i + 1))).join(',\n      ')
  const t = literal(DRIVER_TENANT)
  const steps = STEP_NAMES.length
  const writes = calls.stepWrites
  return `
CREATE PROCEDURE bench_runs(n integer) LANGUAGE plpgsql AS $driver$
DECLARE
  v_checkpoints text[] := ARRAY[
      ${values}];
  v_digest text;
  v_run uuid;
  v_marker text;
  v_token uuid;
  v_read record;
BEGIN
  SELECT digest INTO STRICT v_digest FROM graph_versions
  WHERE tenant_id = ${t} AND graph_name = ${literal(LINEAR_GRAPH)} AND version = 1;
  FOR i IN 1 .. n LOOP
    v_run := gen_random_uuid();
    v_marker := gen_random_uuid()::text;
    PERFORM set_config('weave.traceparent', '', true);
    PERFORM weave_start_run(${t}, v_run, ${literal(LINEAR_GRAPH)}, 1, v_digest, true,
      ${literal(JSON.stringify(runInput()))}::jsonb, 'bench-starter', NULL, NULL, 86400000, NULL,
      NULL, gen_random_uuid(), now(), gen_random_uuid()::text, '127.0.0.1',
      jsonb_build_object('action', 'run.started', 'actor', 'bench-starter',
        'prevHash', 'prev-' || v_marker, 'seq', 'seq-' || v_marker,
        'target', jsonb_build_object('id', v_run, 'kind', 'run'), 'tenant', ${t})::text,
      'seq-' || v_marker, 'prev-' || v_marker, NULL);
    COMMIT;
    PERFORM set_config('weave.traceparent', '', true);
    v_token := (weave_claim_run(${t}, v_run, v_run::text, '{queued}', NULL, NULL, 'run')
      -> 'run' ->> 'lease_token')::uuid;
    COMMIT;
    FOR s IN 1 .. ${writes} LOOP
      PERFORM set_config('weave.traceparent', '', true);
      PERFORM weave_save_step(${t}, v_run, v_token, '0:checkpoint:' || ${literal(LINEAR_GRAPH)},
        ARRAY[v_run::text, v_run::text || '/' || lpad(s::text, 12, '0')],
        replace(v_checkpoints[least(s, ${steps})], ${literal(RUN_ID)}, v_run::text), v_run::text, s, true, false,
        NULL, 'step.completed', jsonb_build_object('seq', s, 'step', 'step' || s), '[]'::jsonb,
        CASE WHEN s = ${writes} THEN 'step' || ${steps} END, CASE WHEN s = ${writes} THEN ${steps} ELSE 0 END);
      COMMIT;
    END LOOP;
    FOR r IN 1 .. ${calls.reads} LOOP
      SELECT * INTO v_read FROM weave_read_run(${t}, v_run, '0:checkpoint:');
      COMMIT;
      IF (v_read.run).status IS DISTINCT FROM 'completed' THEN
        RAISE EXCEPTION 'run % ended %', v_run, (v_read.run).status;
      END IF;
    END LOOP;
    IF i % 2 = 0 THEN
      PERFORM set_config('weave.tenant', ${t}, true);
      PERFORM weave_chain_audit(${t});
      COMMIT;
    END IF;
  END LOOP;
END
$driver$;`
}
