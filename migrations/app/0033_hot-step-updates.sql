DROP INDEX "runs_retention_pending";--> statement-breakpoint
ALTER TABLE "runs" ADD COLUMN "retention_due" boolean DEFAULT false NOT NULL;--> statement-breakpoint
CREATE INDEX "runs_retention_pending" ON "runs" USING btree ("finished_at","id") WHERE retention_due;--> statement-breakpoint
-- Runs retention still has to visit: what the old index's condition selected.
UPDATE "runs" SET "retention_due" = true
WHERE status IN ('completed', 'failed', 'cancelled') AND retained_seq IS DISTINCT FROM checkpoint_seq;
--> statement-breakpoint
-- Room on each page for a run's next row version: a step's update of its run (event seq,
-- checkpoint seq) names no indexed column, so it is a HOT update, which writes no index entry,
-- when the new version fits on the old one's page.
ALTER TABLE "runs" SET (fillfactor = 80);
--> statement-breakpoint
-- A run whose status becomes terminal is due for retention unless retention already applied its
-- policy at its current checkpoint; one that leaves a terminal status (a retry) is not due until
-- it ends again. Retention clears the flag when it applies the policy (retention-prune.ts).
CREATE OR REPLACE FUNCTION weave_mark_retention_due() RETURNS trigger
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $$
BEGIN
  NEW.retention_due := NEW.status IN ('completed', 'failed', 'cancelled')
    AND NEW.retained_seq IS DISTINCT FROM NEW.checkpoint_seq;
  RETURN NEW;
END
$$;
--> statement-breakpoint
CREATE TRIGGER runs_mark_retention_due
  BEFORE UPDATE OF status ON runs
  FOR EACH ROW WHEN (OLD.status IS DISTINCT FROM NEW.status)
  EXECUTE FUNCTION weave_mark_retention_due();
--> statement-breakpoint
-- Runs start queued; one written finished at once (an import, a copy) is due as well.
CREATE TRIGGER runs_mark_retention_due_at_insert
  BEFORE INSERT ON runs
  FOR EACH ROW WHEN (NEW.status IN ('completed', 'failed', 'cancelled'))
  EXECUTE FUNCTION weave_mark_retention_due();
--> statement-breakpoint
CREATE OR REPLACE FUNCTION weave_runs_to_retain(
  p_after_finished timestamptz, p_after_id uuid, p_limit integer
) RETURNS TABLE (
  tenant_id text, id uuid, checkpoint_seq integer, finished_at timestamptz,
  graph_retention jsonb, tenant_checkpoints jsonb, tenant_run_days integer
)
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
  SELECT r.tenant_id, r.id, r.checkpoint_seq, r.finished_at,
    v.spec->'retention', p.checkpoints, p.run_days
  FROM public.runs r
  JOIN public.graph_versions v
    ON v.tenant_id = r.tenant_id AND v.graph_name = r.graph_name AND v.version = r.graph_version
  LEFT JOIN public.retention_policies p ON p.tenant_id = r.tenant_id
  WHERE r.retention_due
    AND r.finished_at IS NOT NULL
    AND (p_after_finished IS NULL OR (r.finished_at, r.id) > (p_after_finished, p_after_id))
  ORDER BY r.finished_at, r.id
  LIMIT least(greatest(p_limit, 1), 1000)
$$;
--> statement-breakpoint
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
