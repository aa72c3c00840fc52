-- A worker's claim of a run and the completion of a run, each one statement (outside a
-- transaction of the worker's own): the same compare-and-sets and events as the transactions
-- they replace (claim-run.ts, apply-stop.ts), so a claim still takes a new fencing token under
-- the run's row lock, the event still gets the run's next seq with its webhook deliveries, and
-- nothing is written unless all of it is.
CREATE OR REPLACE FUNCTION weave_claim_run(
  p_tenant text, p_run uuid, p_job text, p_from text[],
  p_resume_at integer, p_resume_reason text, p_event_reason text
) RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE
  v_before runs;
  v_run runs;
  v_pending jsonb;
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
  -- A held run waits for its thread's active run to end (threads.ts); a job retaken after its
  -- worker died takes its own running run again, under a new token.
  UPDATE runs SET status = 'running', lease_job = p_job, lease_token = gen_random_uuid(),
    updated_at = now(), finished_at = NULL, error = NULL, waiting_on = NULL, wake_at = NULL
  WHERE tenant_id = p_tenant AND id = p_run
    AND ((status = ANY (p_from) AND NOT held) OR (status = 'running' AND lease_job = p_job))
  RETURNING * INTO v_run;
  IF NOT FOUND THEN
    RETURN jsonb_build_object('skipped', v_before.status);
  END IF;
  -- The event takes the run's next event seq; the row returned says so too.
  IF v_before.status = 'queued' THEN
    v_run.event_seq := (weave_append_run_event(p_tenant, p_run, 'run.started', '{}'::jsonb)).seq;
  ELSIF v_before.status <> 'running' THEN
    v_run.event_seq := (weave_append_run_event(p_tenant, p_run, 'run.resumed',
      jsonb_build_object('reason', p_event_reason))).seq;
  END IF;
  RETURN jsonb_build_object('run', to_jsonb(v_run));
END
$$;
--> statement-breakpoint
-- Completes a running run under the claim `p_token` and appends its run.completed event; false
-- when the run is not running under that claim (a late or fenced-out executor changes nothing).
CREATE OR REPLACE FUNCTION weave_complete_run(
  p_tenant text, p_run uuid, p_token uuid, p_stop_reason text, p_last_step text, p_add_steps integer
) RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE
  v_steps integer;
BEGIN
  PERFORM set_config('weave.tenant', p_tenant, true);
  UPDATE runs SET status = 'completed', updated_at = now(), finished_at = now(),
    stop_reason = p_stop_reason, last_step = p_last_step, steps = steps + p_add_steps,
    pending_resume = NULL, waiting_on = NULL, wake_at = NULL
  WHERE tenant_id = p_tenant AND id = p_run AND status = 'running' AND lease_token = p_token
  RETURNING steps INTO v_steps;
  IF NOT FOUND THEN
    RETURN false;
  END IF;
  PERFORM weave_append_run_event(p_tenant, p_run, 'run.completed',
    jsonb_build_object('steps', v_steps, 'lastStep', p_last_step));
  RETURN true;
END
$$;
