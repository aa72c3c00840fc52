-- A step's write with one update of its run: see weave_save_step.
--
-- A run's events take their numbers from its row's counter (runs.event_seq). Appending them one by
-- one through weave_append_run_event updated the row once more per event after the write's own
-- update, and every update after the first in a transaction re-checks the row's foreign keys (a
-- row version of the transaction itself is never taken as checked). A step's write, a claim and a
-- completion take their events' numbers in the one update they make of the run anyway: the
-- numbers stay gap-free and in commit order, as every appender takes them from the row it holds
-- locked until its commit.
--
-- Inserts a run's events numbered from `p_first_seq` on, in the order of `p_events` (an array of
-- {"type", "data"}), with each one's webhook deliveries: the caller has taken the numbers in its
-- own update of the run. A delivery's payload is the event's type, time and data with the run's id
-- and the event's number (0010); its trace parent is the column's default (0028).
CREATE OR REPLACE FUNCTION weave_insert_run_events(
  p_tenant text, p_run uuid, p_first_seq integer, p_events jsonb
) RETURNS SETOF run_events LANGUAGE plpgsql AS $$
BEGIN
  RETURN QUERY
  WITH event AS (
    INSERT INTO run_events (tenant_id, run_id, seq, type, data)
    SELECT p_tenant, p_run, p_first_seq + e.ord::integer - 1, e.value->>'type', e.value->'data'
    FROM jsonb_array_elements(p_events) WITH ORDINALITY AS e(value, ord)
    ORDER BY e.ord
    RETURNING *
  ), delivery AS (
    INSERT INTO webhook_deliveries (tenant_id, webhook_id, event_type, run_id, event_seq, payload)
    SELECT p_tenant, w.id, ev.type, p_run, ev.seq, jsonb_build_object(
      'type', ev.type,
      'timestamp', to_char(ev.at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
      'data', (CASE WHEN jsonb_typeof(ev.data) = 'object' THEN ev.data
                    ELSE jsonb_build_object('value', ev.data) END)
              || jsonb_build_object('runId', p_run, 'eventSeq', ev.seq))
    FROM event ev
    JOIN webhooks w
      ON w.tenant_id = p_tenant AND w.deleted_at IS NULL AND ev.type = ANY (w.events)
    ORDER BY ev.seq
  )
  SELECT * FROM event ORDER BY seq;
END
$$;
--> statement-breakpoint
-- One event with the run's next number, for callers that do not update the run themselves.
CREATE OR REPLACE FUNCTION weave_append_run_event(p_tenant text, p_run uuid, p_type text, p_data jsonb)
RETURNS run_events LANGUAGE plpgsql AS $$
DECLARE
  v_seq integer;
  v_event run_events;
BEGIN
  UPDATE runs SET event_seq = event_seq + 1
  WHERE tenant_id = p_tenant AND id = p_run
  RETURNING event_seq INTO v_seq;
  IF v_seq IS NULL THEN
    RAISE EXCEPTION 'run % does not exist', p_run USING ERRCODE = 'WV404';
  END IF;
  SELECT * INTO v_event FROM weave_insert_run_events(p_tenant, p_run, v_seq,
    jsonb_build_array(jsonb_build_object('type', p_type, 'data', p_data)));
  RETURN v_event;
END
$$;
--> statement-breakpoint
-- The step's write: one update of the run both fences it (running under the claim's token, and
-- for a root checkpoint, ahead of the run's checkpoint) and takes its events' numbers; only when
-- it matches nothing is the run read again, to say why. The events are the step's own, then its
-- step.completed, as before.
CREATE OR REPLACE FUNCTION weave_save_step(
  p_tenant text, p_run uuid, p_token uuid,
  p_ns text, p_keys text[], p_value text,
  p_latest text, p_seq integer, p_is_root boolean, p_failed boolean,
  p_approval uuid, p_event_type text, p_event_data jsonb, p_events jsonb
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
BEGIN
  PERFORM set_config('weave.tenant', p_tenant, true);
  v_events := coalesce(p_events, '[]'::jsonb);
  IF p_event_type IS NOT NULL THEN
    v_events := v_events || jsonb_build_array(
      jsonb_build_object('type', p_event_type, 'data', p_event_data));
  END IF;
  v_count := jsonb_array_length(v_events);
  -- A write renews the lease when it is more than a second old: the reconciler leaves runs
  -- that changed recently alone (seconds at the least), and leaving updated_at, an indexed
  -- column, as it is keeps the update of a run's quick steps HOT. The first root checkpoint
  -- after a client's resume has applied its input: the request is done.
  UPDATE runs SET
    updated_at = CASE WHEN updated_at < now() - interval '1 second' THEN now() ELSE updated_at END,
    checkpoint_seq = CASE WHEN p_is_root THEN p_seq ELSE checkpoint_seq END,
    pending_resume = CASE WHEN p_is_root THEN NULL ELSE pending_resume END,
    event_seq = event_seq + v_count
  WHERE tenant_id = p_tenant AND id = p_run
    AND status = 'running' AND lease_token IS NOT DISTINCT FROM p_token
    AND (NOT p_is_root OR p_seq > checkpoint_seq)
  RETURNING checkpoint_seq, event_seq, cancel_requested
  INTO v_checkpoint_seq, v_event_seq, v_cancel;
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
  IF v_count > 0 THEN
    PERFORM weave_insert_run_events(p_tenant, p_run, v_event_seq - v_count + 1, v_events);
  END IF;
  -- The executor stops at this step boundary when a client cancelled the run meanwhile.
  RETURN v_cancel;
END
$$;
--> statement-breakpoint
-- A claim takes its event's number (run.started from queued, run.resumed from waiting or failed,
-- none when its job takes its own running run again) in the update that claims the run.
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
    PERFORM weave_insert_run_events(p_tenant, p_run, v_run.event_seq, jsonb_build_array(v_event));
  END IF;
  RETURN jsonb_build_object('run', to_jsonb(v_run));
END
$$;
--> statement-breakpoint
-- A completion takes its run.completed event's number in the update that completes the run.
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
  PERFORM weave_insert_run_events(p_tenant, p_run, v_event_seq, jsonb_build_array(
    jsonb_build_object('type', 'run.completed',
      'data', jsonb_build_object('steps', v_steps, 'lastStep', p_last_step))));
  RETURN true;
END
$$;
