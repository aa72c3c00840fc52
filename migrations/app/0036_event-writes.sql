-- A run's events without webhook work when the tenant has no webhook, and checkpoints compressed
-- with lz4.
--
-- Every step's write, claim, completion and start inserted its events through
-- weave_insert_run_events: a set-returning function whose rows the callers dropped, with a second
-- insert joining each event to the tenant's webhooks for its deliveries. Per step that was about a
-- fifth of weave_save_step's backend time (pgbench, 16 clients, bench/e2e/README.md), most of it
-- spent on the call, its returned rows and the join, also for the many tenants that have no
-- webhook. weave_write_run_events inserts the same events and returns nothing; the deliveries are
-- made as before (by weave_insert_run_events) when the tenant has a webhook that is not deleted.
-- Both read the tenant's webhooks in the writer's transaction, so a webhook committed before the
-- write's statement gets its deliveries either way.
CREATE OR REPLACE FUNCTION weave_write_run_events(
  p_tenant text, p_run uuid, p_first_seq integer, p_events jsonb
) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  IF EXISTS (SELECT 1 FROM webhooks w WHERE w.tenant_id = p_tenant AND w.deleted_at IS NULL) THEN
    PERFORM weave_insert_run_events(p_tenant, p_run, p_first_seq, p_events);
  ELSE
    INSERT INTO run_events (tenant_id, run_id, seq, type, data)
    SELECT p_tenant, p_run, p_first_seq + e.ord::integer - 1, e.value->>'type', e.value->'data'
    FROM jsonb_array_elements(p_events) WITH ORDINALITY AS e(value, ord)
    ORDER BY e.ord;
  END IF;
END
$$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION weave_save_step(
  p_tenant text, p_run uuid, p_token uuid,
  p_ns text, p_keys text[], p_value text,
  p_latest text, p_seq integer, p_is_root boolean, p_failed boolean,
  p_approval uuid, p_event_type text, p_event_data jsonb, p_events jsonb,
  p_complete_last_step text DEFAULT NULL, p_add_steps integer DEFAULT 0
) RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE
  v_events jsonb;
  v_count integer;
  v_status text;
  v_token uuid;
  v_checkpoint_seq integer;
  v_event_seq integer;
  v_cancel boolean;
  v_attempt integer;
  v_completes boolean := p_complete_last_step IS NOT NULL AND p_is_root AND NOT p_failed;
  v_steps integer;
BEGIN
  PERFORM set_config('weave.tenant', p_tenant, true);
  v_events := coalesce(p_events, '[]'::jsonb);
  IF p_event_type IS NOT NULL THEN
    v_events := v_events || jsonb_build_array(
      jsonb_build_object('type', p_event_type, 'data', p_event_data));
  END IF;
  v_count := jsonb_array_length(v_events);
  IF v_completes THEN
    v_count := v_count + 1;
  END IF;
  -- A write renews the lease when it is more than a second old: the reconciler leaves runs
  -- that changed recently alone (seconds at the least), and leaving updated_at, an indexed
  -- column, as it is keeps the update of a run's quick steps HOT. The first root checkpoint
  -- after a client's resume has applied its input: the request is done.
  -- A completing write ends the run as weave_complete_run does, in the same update.
  UPDATE runs SET
    updated_at = CASE WHEN v_completes OR updated_at < now() - interval '1 second'
      THEN now() ELSE updated_at END,
    checkpoint_seq = CASE WHEN p_is_root THEN p_seq ELSE checkpoint_seq END,
    pending_resume = CASE WHEN p_is_root THEN NULL ELSE pending_resume END,
    event_seq = event_seq + v_count,
    status = CASE WHEN v_completes THEN 'completed' ELSE status END,
    finished_at = CASE WHEN v_completes THEN now() ELSE finished_at END,
    stop_reason = CASE WHEN v_completes THEN 'completed' ELSE stop_reason END,
    last_step = CASE WHEN v_completes THEN p_complete_last_step ELSE last_step END,
    steps = CASE WHEN v_completes THEN steps + p_add_steps ELSE steps END,
    waiting_on = CASE WHEN v_completes THEN NULL ELSE waiting_on END,
    wake_at = CASE WHEN v_completes THEN NULL ELSE wake_at END
  WHERE tenant_id = p_tenant AND id = p_run
    AND status = 'running' AND lease_token IS NOT DISTINCT FROM p_token
    AND (NOT p_is_root OR p_seq > checkpoint_seq)
  RETURNING checkpoint_seq, event_seq, cancel_requested, steps
  INTO v_checkpoint_seq, v_event_seq, v_cancel, v_steps;
  IF NOT FOUND THEN
    SELECT status, lease_token, checkpoint_seq INTO v_status, v_token, v_checkpoint_seq
    FROM runs WHERE tenant_id = p_tenant AND id = p_run;
    IF p_is_root AND v_status = 'running' AND v_token IS NOT DISTINCT FROM p_token
       AND p_seq <= v_checkpoint_seq THEN
      RAISE EXCEPTION 'checkpoint % of run % is not after %', p_seq, p_run, v_checkpoint_seq
        USING ERRCODE = 'WV002';
    END IF;
    RAISE EXCEPTION 'run % is not running under this claim', p_run USING ERRCODE = 'WV001';
  END IF;
  IF p_approval IS NOT NULL THEN
    -- A nested step's write leaves the run's checkpoint seq as it was: the approval is used by
    -- the run's next root checkpoint.
    UPDATE approvals SET consumed_seq = CASE WHEN p_is_root THEN p_seq ELSE v_checkpoint_seq + 1 END
    WHERE tenant_id = p_tenant AND id = p_approval AND run_id = p_run
      AND status IN ('approved', 'rejected', 'expired') AND consumed_seq IS NULL;
    IF NOT FOUND THEN
      RAISE EXCEPTION 'approval % is not a settled, unused decision of run %', p_approval, p_run
        USING ERRCODE = 'WV003';
    END IF;
  END IF;
  IF p_failed THEN
    SELECT coalesce(attempt_seq, p_seq) INTO v_attempt FROM weave_kv
    WHERE tenant_id = p_tenant AND ns = p_ns AND key = p_latest AND attempt_seq IS NOT NULL;
    v_attempt := coalesce(v_attempt, p_seq);
  END IF;
  INSERT INTO weave_kv (tenant_id, ns, key, value, attempt_seq)
  SELECT p_tenant, p_ns, k, p_value, CASE WHEN k = p_latest THEN v_attempt END
  FROM unnest(p_keys) AS k
  ON CONFLICT (tenant_id, ns, key) DO UPDATE
    SET value = EXCLUDED.value, attempt_seq = EXCLUDED.attempt_seq, updated_at = now();
  IF v_completes THEN
    v_events := v_events || jsonb_build_array(jsonb_build_object('type', 'run.completed',
      'data', jsonb_build_object('steps', v_steps, 'lastStep', p_complete_last_step)));
  END IF;
  IF v_count > 0 THEN
    PERFORM weave_write_run_events(p_tenant, p_run, v_event_seq - v_count + 1, v_events);
  END IF;
  -- The executor stops at this step boundary when a client cancelled the run meanwhile.
  RETURN v_cancel;
END
$$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION weave_claim_run(
  p_tenant text, p_run uuid, p_job text, p_from text[],
  p_resume_at integer, p_resume_reason text, p_event_reason text
) RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE
  v_before runs;
  v_run runs;
  v_pending jsonb;
  v_event jsonb;
BEGIN
  PERFORM set_config('weave.tenant', p_tenant, true);
  SELECT * INTO v_before FROM runs WHERE tenant_id = p_tenant AND id = p_run FOR NO KEY UPDATE;
  IF NOT FOUND THEN
    RETURN jsonb_build_object('skipped', 'missing');
  END IF;
  IF v_before.cancel_requested AND v_before.status <> 'running' THEN
    RETURN jsonb_build_object('skipped', v_before.status);
  END IF;
  -- A resume is for one checkpoint: a run that has left it moved on without this job.
  IF p_resume_at IS NOT NULL AND p_resume_at <> v_before.checkpoint_seq THEN
    RETURN jsonb_build_object('skipped', 'moved-on');
  END IF;
  -- An input or retry resume needs the client's request, still meant for this checkpoint.
  IF p_resume_reason IN ('input', 'retry') THEN
    v_pending := v_before.pending_resume;
    IF v_pending IS NULL OR jsonb_typeof(v_pending->'atSeq') IS DISTINCT FROM 'number'
       OR (v_pending->>'atSeq')::numeric <> v_before.checkpoint_seq
       OR v_pending->>'reason' IS DISTINCT FROM p_resume_reason THEN
      RETURN jsonb_build_object('skipped', 'moved-on');
    END IF;
  END IF;
  -- The row is locked: the status read above is the one the update below changes.
  IF v_before.status = 'queued' THEN
    v_event := jsonb_build_object('type', 'run.started', 'data', '{}'::jsonb);
  ELSIF v_before.status <> 'running' THEN
    v_event := jsonb_build_object('type', 'run.resumed',
      'data', jsonb_build_object('reason', p_event_reason));
  END IF;
  -- A held run waits for its thread's active run to end (threads.ts); a job retaken after its
  -- worker died takes its own running run again, under a new token.
  UPDATE runs SET status = 'running', lease_job = p_job, lease_token = gen_random_uuid(),
    updated_at = now(), finished_at = NULL, error = NULL, waiting_on = NULL, wake_at = NULL,
    event_seq = event_seq + CASE WHEN v_event IS NULL THEN 0 ELSE 1 END
  WHERE tenant_id = p_tenant AND id = p_run
    AND ((status = ANY (p_from) AND NOT held) OR (status = 'running' AND lease_job = p_job))
  RETURNING * INTO v_run;
  IF NOT FOUND THEN
    RETURN jsonb_build_object('skipped', v_before.status);
  END IF;
  IF v_event IS NOT NULL THEN
    PERFORM weave_write_run_events(p_tenant, p_run, v_run.event_seq, jsonb_build_array(v_event));
  END IF;
  RETURN jsonb_build_object('run', to_jsonb(v_run));
END
$$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION weave_complete_run(
  p_tenant text, p_run uuid, p_token uuid, p_stop_reason text, p_last_step text, p_add_steps integer
) RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE
  v_steps integer;
  v_event_seq integer;
BEGIN
  PERFORM set_config('weave.tenant', p_tenant, true);
  UPDATE runs SET status = 'completed', updated_at = now(), finished_at = now(),
    stop_reason = p_stop_reason, last_step = p_last_step, steps = steps + p_add_steps,
    pending_resume = NULL, waiting_on = NULL, wake_at = NULL, event_seq = event_seq + 1
  WHERE tenant_id = p_tenant AND id = p_run AND status = 'running' AND lease_token = p_token
  RETURNING steps, event_seq INTO v_steps, v_event_seq;
  IF NOT FOUND THEN
    RETURN false;
  END IF;
  PERFORM weave_write_run_events(p_tenant, p_run, v_event_seq, jsonb_build_array(
    jsonb_build_object('type', 'run.completed',
      'data', jsonb_build_object('steps', v_steps, 'lastStep', p_last_step))));
  RETURN true;
END
$$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION weave_start_run(
  p_tenant text, p_run uuid, p_graph text, p_version integer, p_digest text, p_latest boolean,
  p_input jsonb, p_created_by text, p_idempotency_key text, p_request_hash text,
  p_idempotency_ttl_ms bigint, p_concurrency_key text, p_concurrency_limit integer,
  p_audit_id uuid, p_audit_at timestamptz, p_request_id text, p_ip text, p_audit_body text,
  p_seq_marker text, p_prev_marker text, p_held_marker text
) RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE
  v_archived_at timestamptz;
  v_digest text;
  v_existing runs;
  v_run runs;
  v_seq integer;
  v_held boolean := false;
  v_details jsonb;
  v_position integer;
BEGIN
  PERFORM set_config('weave.tenant', p_tenant, true);
  SELECT g.archived_at INTO v_archived_at FROM graphs g
  WHERE g.tenant_id = p_tenant AND g.name = p_graph;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'graph % does not exist', p_graph USING ERRCODE = 'WV010';
  END IF;
  IF v_archived_at IS NOT NULL THEN
    RAISE EXCEPTION 'graph % is archived', p_graph USING ERRCODE = 'WV011';
  END IF;
  SELECT v.digest INTO v_digest FROM graph_versions v
  WHERE v.tenant_id = p_tenant AND v.graph_name = p_graph AND v.version = p_version;
  IF v_digest IS DISTINCT FROM p_digest OR (p_latest AND EXISTS (
    SELECT 1 FROM graph_versions v
    WHERE v.tenant_id = p_tenant AND v.graph_name = p_graph AND v.version > p_version
  )) THEN
    RAISE EXCEPTION 'graph % version % changed', p_graph, p_version USING ERRCODE = 'WV012';
  END IF;
  -- A replay of a run of a concurrency key is answered before the key's lock is taken: the lock
  -- is never held while waiting for a run's row, which an end holds while it waits for the lock
  -- (concurrency-keys.ts).
  IF p_idempotency_key IS NOT NULL AND p_concurrency_key IS NOT NULL THEN
    v_existing := weave_start_run_replay(p_tenant, p_idempotency_key, p_request_hash,
      p_idempotency_ttl_ms);
    IF v_existing.id IS NOT NULL THEN
      RETURN jsonb_build_object('run', to_jsonb(v_existing), 'created', false);
    END IF;
  END IF;
  IF p_concurrency_key IS NOT NULL THEN
    SELECT place, waits INTO v_seq, v_held
    FROM weave_place_concurrency_run(p_tenant, p_concurrency_key, p_concurrency_limit);
  END IF;
  LOOP
    -- Its first event's seq is taken here: a second update of the row just inserted would
    -- also check its foreign keys again.
    INSERT INTO runs (id, tenant_id, graph_name, graph_version, input, created_by,
      idempotency_key, request_hash, held, concurrency_key, concurrency_limit, concurrency_seq,
      event_seq)
    VALUES (p_run, p_tenant, p_graph, p_version, p_input, p_created_by, p_idempotency_key,
      p_request_hash, v_held, p_concurrency_key, p_concurrency_limit, v_seq, 1)
    ON CONFLICT (tenant_id, idempotency_key) WHERE idempotency_key IS NOT NULL DO NOTHING
    RETURNING * INTO v_run;
    EXIT WHEN FOUND;
    -- The key names a run committed meanwhile: that run is the answer, unless an expiry
    -- released the key in between, and then the insert is tried again.
    v_existing := weave_start_run_replay(p_tenant, p_idempotency_key, p_request_hash,
      p_idempotency_ttl_ms);
    IF v_existing.id IS NOT NULL THEN
      RETURN jsonb_build_object('run', to_jsonb(v_existing), 'created', false);
    END IF;
  END LOOP;
  v_details := jsonb_build_object('graph', p_graph, 'version', p_version)
    || CASE WHEN p_concurrency_key IS NULL THEN '{}'::jsonb
            ELSE jsonb_build_object('concurrencyKey', p_concurrency_key, 'held', v_held) END;
  -- run.queued is event 1, as the row says (migration 0031).
  PERFORM weave_write_run_events(p_tenant, p_run, 1,
    jsonb_build_array(jsonb_build_object('type', 'run.queued', 'data', v_details)));
  INSERT INTO audit_pending (id, tenant_id, at, actor, action, target_kind, target_id,
    request_id, ip, details, body, seq_marker, prev_marker)
  VALUES (p_audit_id, p_tenant, p_audit_at, p_created_by, 'run.started', 'run', p_run::text,
    p_request_id, p_ip, v_details,
    CASE WHEN p_held_marker IS NULL THEN p_audit_body
         ELSE replace(p_audit_body, '"' || p_held_marker || '"', v_held::text) END,
    p_seq_marker, p_prev_marker);
  IF v_held THEN
    SELECT count(*)::integer + 1 INTO v_position FROM runs r
    WHERE r.tenant_id = p_tenant AND r.concurrency_key = p_concurrency_key
      AND r.status = 'queued' AND r.held AND r.concurrency_seq < v_seq;
  END IF;
  RETURN jsonb_build_object('run', to_jsonb(v_run), 'created', true, 'position', v_position);
END
$$;
--> statement-breakpoint
-- Each checkpoint's ~2 KB value is compressed twice per step (the latest key and the history
-- entry) and a run's input once: lz4 compresses and decompresses several times faster than
-- Postgres's default (pglz) at about the same size here (722 against 736 bytes for the
-- benchmark's checkpoint). Values written before keep their compression; both read the same. A
-- server built without lz4 keeps pglz.
DO $$
BEGIN
  ALTER TABLE weave_kv ALTER COLUMN value SET COMPRESSION lz4;
  ALTER TABLE runs ALTER COLUMN input SET COMPRESSION lz4;
EXCEPTION WHEN feature_not_supported THEN
  RAISE NOTICE 'lz4 is not available on this server: checkpoints stay compressed with pglz';
END
$$;
