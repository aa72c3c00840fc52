-- A step's write that does not complete its run leaves the run's status out of its update.
--
-- weave_save_step's one update of the run set every column a completion changes, each to
-- itself unless the write completed the run. The status among them made Postgres consider the
-- run's three triggers on a status change for every step: for each, it reads the trigger's
-- WHEN condition from its stored form, plans it and evaluates it, once per statement: 9% of the
-- instructions Postgres spent in a run's functions (bench/e2e/README.md, fifteenth round). Four of a
-- five-step run's writes now update only the fence's and the events' columns; the completing
-- write updates as before. The statements are otherwise those of migration 0040.
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
  -- A completing write ends the run as weave_complete_run does, in the same update. Only that
  -- update names the status: the run's triggers on a status change are checked only for an
  -- update that sets it, and each check reads its trigger's condition again.
  IF v_completes THEN
    UPDATE runs SET updated_at = now(), checkpoint_seq = p_seq, pending_resume = NULL,
      event_seq = event_seq + v_count, status = 'completed', finished_at = now(),
      stop_reason = 'completed', last_step = p_complete_last_step, steps = steps + p_add_steps,
      waiting_on = NULL, wake_at = NULL
    WHERE tenant_id = p_tenant AND id = p_run
      AND (status = 'running' AND lease_token IS NOT DISTINCT FROM p_token
        AND p_seq > checkpoint_seq) IS TRUE
    RETURNING checkpoint_seq, event_seq, cancel_requested, steps
    INTO v_checkpoint_seq, v_event_seq, v_cancel, v_steps;
  ELSE
    UPDATE runs SET
      updated_at = CASE WHEN updated_at < now() - interval '1 second' THEN now() ELSE updated_at END,
      checkpoint_seq = CASE WHEN p_is_root THEN p_seq ELSE checkpoint_seq END,
      pending_resume = CASE WHEN p_is_root THEN NULL ELSE pending_resume END,
      event_seq = event_seq + v_count
    WHERE tenant_id = p_tenant AND id = p_run
      AND (status = 'running' AND lease_token IS NOT DISTINCT FROM p_token
        AND (NOT p_is_root OR p_seq > checkpoint_seq)) IS TRUE
    RETURNING checkpoint_seq, event_seq, cancel_requested, steps
    INTO v_checkpoint_seq, v_event_seq, v_cancel, v_steps;
  END IF;
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
