-- A run's fences checked on the row its primary key reaches, never used to choose an index.
--
-- The step's write, the claim and the completion update one run by tenant and id, fenced on its
-- status. `status = 'running'` also matches runs_status_updated (status, updated_at, id) and
-- runs_tenant_status_created: when the statistics say few runs are running (a sample taken while
-- none were) or there are no statistics yet, the planner rated a scan of every running run's
-- entries as cheap as the primary key and chose it, so each step read the entries of all running
-- runs, dead ones included, more of them as a service got busier. Written as `(...) IS TRUE`,
-- which keeps the same rows in a WHERE clause, the fence is a check of the row the key reached
-- (query-plans.int.test.ts). The statements are otherwise those of migration 0036.
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
    AND (status = 'running' AND lease_token IS NOT DISTINCT FROM p_token
      AND (NOT p_is_root OR p_seq > checkpoint_seq)) IS TRUE
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
    AND ((status = ANY (p_from) AND NOT held)
      OR (status = 'running' AND lease_job = p_job)) IS TRUE
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
  WHERE tenant_id = p_tenant AND id = p_run
    AND (status = 'running' AND lease_token = p_token) IS TRUE
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
