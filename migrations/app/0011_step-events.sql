-- A step's write carries, before its step.completed event, the events of what the step did
-- (an agent step's reply and how each of its tool calls was settled), so they are on the record
-- exactly when the step's checkpoint is: never twice, never without it.
DROP FUNCTION IF EXISTS weave_save_step(
  text, uuid, uuid, text, text[], text, text, integer, boolean, boolean, uuid, text, jsonb
);
--> statement-breakpoint
CREATE OR REPLACE FUNCTION weave_save_step(
  p_tenant text, p_run uuid, p_token uuid,
  p_ns text, p_keys text[], p_value text,
  p_latest text, p_seq integer, p_is_root boolean, p_failed boolean,
  p_approval uuid, p_event_type text, p_event_data jsonb, p_events jsonb
) RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE
  v_status text;
  v_token uuid;
  v_checkpoint_seq integer;
  v_cancel boolean;
  v_attempt integer;
  v_event jsonb;
BEGIN
  PERFORM set_config('weave.tenant', p_tenant, true);
  SELECT status, lease_token, checkpoint_seq, cancel_requested
  INTO v_status, v_token, v_checkpoint_seq, v_cancel
  FROM runs WHERE tenant_id = p_tenant AND id = p_run FOR NO KEY UPDATE;
  IF v_status IS DISTINCT FROM 'running' OR v_token IS DISTINCT FROM p_token THEN
    RAISE EXCEPTION 'run % is not running under this claim', p_run USING ERRCODE = 'WV001';
  END IF;
  IF p_is_root AND p_seq <= v_checkpoint_seq THEN
    RAISE EXCEPTION 'checkpoint % of run % is not after %', p_seq, p_run, v_checkpoint_seq
      USING ERRCODE = 'WV002';
  END IF;
  -- Any write renews the lease: the reconciler leaves runs that changed recently alone. The
  -- first root checkpoint after a client's resume has applied its input: the request is done.
  UPDATE runs SET updated_at = now(),
    checkpoint_seq = CASE WHEN p_is_root THEN p_seq ELSE checkpoint_seq END,
    pending_resume = CASE WHEN p_is_root THEN NULL ELSE pending_resume END
  WHERE tenant_id = p_tenant AND id = p_run;
  IF p_approval IS NOT NULL THEN
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
  FOR v_event IN SELECT e FROM jsonb_array_elements(coalesce(p_events, '[]'::jsonb)) AS e LOOP
    PERFORM weave_append_run_event(p_tenant, p_run, v_event->>'type', v_event->'data');
  END LOOP;
  IF p_event_type IS NOT NULL THEN
    PERFORM weave_append_run_event(p_tenant, p_run, p_event_type, p_event_data);
  END IF;
  -- The executor stops at this step boundary when a client cancelled the run meanwhile.
  RETURN v_cancel;
END
$$;
