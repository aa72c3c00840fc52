-- @weave/pgstore: tenant-bound stores. Each row carries its tenant; a store made with
-- { tenant } reads and writes only that tenant's rows through the functions below, which set the
-- tenant for row-level security (see the package README).
ALTER TABLE "weave_kv" ADD COLUMN IF NOT EXISTS tenant_id text COLLATE "C" NOT NULL DEFAULT '';
DO $pk$
DECLARE pk text;
BEGIN
  SELECT conname INTO pk FROM pg_constraint WHERE conrelid = 'weave_kv'::regclass AND contype = 'p';
  IF pk IS NULL OR NOT EXISTS (
    SELECT 1 FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = i.indkey[0]
    WHERE i.indrelid = 'weave_kv'::regclass AND i.indisprimary AND a.attname = 'tenant_id'
  ) THEN
    IF pk IS NOT NULL THEN EXECUTE format('ALTER TABLE %I DROP CONSTRAINT %I', 'weave_kv', pk); END IF;
    ALTER TABLE "weave_kv" ADD PRIMARY KEY (tenant_id, ns, key);
  END IF;
END
$pk$;
CREATE OR REPLACE FUNCTION "weave_kv_t_get"(p_setting text, p_tenant text, p_ns text, p_key text)
RETURNS text LANGUAGE plpgsql AS $fn$
BEGIN
  PERFORM set_config(p_setting, p_tenant, true);
  RETURN (SELECT value FROM "weave_kv" WHERE tenant_id = p_tenant AND ns = p_ns AND key = p_key);
END
$fn$;
CREATE OR REPLACE FUNCTION "weave_kv_t_put"(p_setting text, p_tenant text, p_ns text, p_key text, p_value text)
RETURNS void LANGUAGE plpgsql AS $fn$
BEGIN
  PERFORM set_config(p_setting, p_tenant, true);
  INSERT INTO "weave_kv" (tenant_id, ns, key, value) VALUES (p_tenant, p_ns, p_key, p_value)
  ON CONFLICT (tenant_id, ns, key) DO UPDATE SET value = EXCLUDED.value, updated_at = now();
END
$fn$;
CREATE OR REPLACE FUNCTION "weave_kv_t_put_many"(p_setting text, p_tenant text, p_ns text, p_keys text[], p_values text[])
RETURNS void LANGUAGE plpgsql AS $fn$
BEGIN
  PERFORM set_config(p_setting, p_tenant, true);
  INSERT INTO "weave_kv" (tenant_id, ns, key, value)
  SELECT p_tenant, p_ns, k, v FROM unnest(p_keys, p_values) AS e(k, v)
  ON CONFLICT (tenant_id, ns, key) DO UPDATE SET value = EXCLUDED.value, updated_at = now();
END
$fn$;
CREATE OR REPLACE FUNCTION "weave_kv_t_delete"(p_setting text, p_tenant text, p_ns text, p_key text)
RETURNS void LANGUAGE plpgsql AS $fn$
BEGIN
  PERFORM set_config(p_setting, p_tenant, true);
  DELETE FROM "weave_kv" WHERE tenant_id = p_tenant AND ns = p_ns AND key = p_key;
END
$fn$;
CREATE OR REPLACE FUNCTION "weave_kv_t_list"(p_setting text, p_tenant text, p_ns text, p_from text, p_to text)
RETURNS SETOF text LANGUAGE plpgsql AS $fn$
BEGIN
  PERFORM set_config(p_setting, p_tenant, true);
  RETURN QUERY SELECT key FROM "weave_kv"
  WHERE tenant_id = p_tenant AND ns = p_ns AND key >= p_from COLLATE "C"
    AND (p_to IS NULL OR key < p_to COLLATE "C")
  ORDER BY key COLLATE "C";
END
$fn$;
--> statement-breakpoint
-- Checkpoints written before this migration kept their tenant in a key prefix
-- (ns = "<n>:tenant:<tenant>:<namespace>"): move it into tenant_id.
UPDATE weave_kv k SET tenant_id = p.tenant, ns = '0:' || p.rest
FROM (
  SELECT s.ns AS old_ns, s.key AS old_key, substr(s.prefix, 8, length(s.prefix) - 8) AS tenant, s.rest
  FROM (
    SELECT ns, key,
      substr(ns, length(split_part(ns, ':', 1)) + 2, split_part(ns, ':', 1)::int) AS prefix,
      substr(ns, length(split_part(ns, ':', 1)) + 2 + split_part(ns, ':', 1)::int) AS rest
    FROM weave_kv WHERE tenant_id = '' AND ns ~ '^[0-9]+:tenant:'
  ) s
  WHERE s.prefix LIKE 'tenant:%:'
) p
WHERE k.tenant_id = '' AND k.ns = p.old_ns AND k.key = p.old_key;
--> statement-breakpoint
-- The first attempt's seq of a step being retried after a failed checkpoint (null otherwise):
-- an outside call keeps one idempotency key however often the step is retried.
ALTER TABLE weave_kv ADD COLUMN IF NOT EXISTS attempt_seq integer;
--> statement-breakpoint
UPDATE runs r SET checkpoint_seq = coalesce((k.value::jsonb->>'seq')::int, 0)
FROM weave_kv k
WHERE k.tenant_id = r.tenant_id AND k.ns = '0:checkpoint:' || r.graph_name AND k.key = r.id::text;
--> statement-breakpoint
-- Checkpoints are tenant rows like every other: the app role sees only the transaction's tenant.
ALTER TABLE weave_kv ENABLE ROW LEVEL SECURITY;
--> statement-breakpoint
CREATE POLICY tenant_isolation ON weave_kv AS PERMISSIVE FOR ALL TO weave_app
  USING (tenant_id = current_setting('weave.tenant', true))
  WITH CHECK (tenant_id = current_setting('weave.tenant', true));
--> statement-breakpoint
-- Appends a run event with the run's next number (the run row's counter, so appenders take
-- turns and numbers stay gap-free) and, in the same transaction, one pending delivery per webhook
-- of the tenant subscribed to its type. Runs as the caller, inside its tenant's transaction.
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
  INSERT INTO run_events (tenant_id, run_id, seq, type, data)
  VALUES (p_tenant, p_run, v_seq, p_type, p_data)
  RETURNING * INTO v_event;
  INSERT INTO webhook_deliveries (tenant_id, webhook_id, event_type, run_id, event_seq, payload)
  SELECT p_tenant, w.id, p_type, p_run, v_seq, jsonb_build_object(
    'type', p_type,
    'timestamp', to_char(v_event.at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
    'data', (CASE WHEN jsonb_typeof(p_data) = 'object' THEN p_data
                  ELSE jsonb_build_object('value', p_data) END)
            || jsonb_build_object('runId', p_run, 'seq', v_seq))
  FROM webhooks w
  WHERE w.tenant_id = p_tenant AND w.deleted_at IS NULL AND p_type = ANY (w.events);
  RETURN v_event;
END
$$;
--> statement-breakpoint
-- One step's checkpoint as one statement: the lease fence (the run is running under this claim's
-- token), the run's checkpoint seq moving forward only, the settled approval the step used, the
-- checkpoint rows (latest and history) and the step's event with its deliveries. Any refusal
-- raises and writes nothing: WV001 lease lost, WV002 seq not ahead, WV003 approval not usable.
CREATE OR REPLACE FUNCTION weave_save_step(
  p_tenant text, p_run uuid, p_token uuid,
  p_ns text, p_keys text[], p_value text,
  p_latest text, p_seq integer, p_is_root boolean, p_failed boolean,
  p_approval uuid, p_event_type text, p_event_data jsonb
) RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE
  v_status text;
  v_token uuid;
  v_checkpoint_seq integer;
  v_cancel boolean;
  v_attempt integer;
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
  IF p_event_type IS NOT NULL THEN
    PERFORM weave_append_run_event(p_tenant, p_run, p_event_type, p_event_data);
  END IF;
  -- The executor stops at this step boundary when a client cancelled the run meanwhile.
  RETURN v_cancel;
END
$$;
--> statement-breakpoint
-- A checkpoint row with the first-attempt seq of a step being retried (see attempt_seq).
CREATE OR REPLACE FUNCTION weave_load_checkpoint(p_tenant text, p_ns text, p_key text)
RETURNS TABLE (value text, attempt_seq integer) LANGUAGE plpgsql AS $$
BEGIN
  PERFORM set_config('weave.tenant', p_tenant, true);
  RETURN QUERY SELECT k.value, k.attempt_seq FROM weave_kv k
  WHERE k.tenant_id = p_tenant AND k.ns = p_ns AND k.key = p_key;
END
$$;
--> statement-breakpoint
-- The reconciler's cross-tenant reads, one per kind of repair, each a keyset page over an index
-- so no kind can starve another: SECURITY DEFINER functions owned by the owner, returning ids.
CREATE OR REPLACE FUNCTION weave_runs_in_status(
  p_status text, p_updated_before timestamptz,
  p_after_updated timestamptz, p_after_id uuid, p_limit integer
) RETURNS TABLE (tenant_id text, id uuid, updated_at timestamptz, lease_job text)
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
  SELECT r.tenant_id, r.id, r.updated_at, r.lease_job
  FROM public.runs r
  WHERE r.status = p_status AND r.updated_at < p_updated_before
    AND (p_after_updated IS NULL OR (r.updated_at, r.id) > (p_after_updated, p_after_id))
  ORDER BY r.updated_at, r.id
  LIMIT least(greatest(p_limit, 1), 1000)
$$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION weave_elapsed_timers(
  p_now timestamptz, p_after_wake timestamptz, p_after_id uuid, p_limit integer
) RETURNS TABLE (tenant_id text, id uuid, wake_at timestamptz, waiting_on jsonb)
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
  SELECT r.tenant_id, r.id, r.wake_at, r.waiting_on
  FROM public.runs r
  WHERE r.status = 'waiting' AND r.wake_at IS NOT NULL AND r.wake_at <= p_now
    AND (p_after_wake IS NULL OR (r.wake_at, r.id) > (p_after_wake, p_after_id))
  ORDER BY r.wake_at, r.id
  LIMIT least(greatest(p_limit, 1), 1000)
$$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION weave_pending_resumes(
  p_updated_before timestamptz, p_after_updated timestamptz, p_after_id uuid, p_limit integer
) RETURNS TABLE (tenant_id text, id uuid, updated_at timestamptz)
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
  SELECT r.tenant_id, r.id, r.updated_at
  FROM public.runs r
  WHERE r.pending_resume IS NOT NULL AND r.status IN ('waiting', 'failed')
    AND r.updated_at < p_updated_before
    AND (p_after_updated IS NULL OR (r.updated_at, r.id) > (p_after_updated, p_after_id))
  ORDER BY r.updated_at, r.id
  LIMIT least(greatest(p_limit, 1), 1000)
$$;
--> statement-breakpoint
-- Settled approvals no step has used while their run still waits on them: their resume was lost.
CREATE OR REPLACE FUNCTION weave_unresumed_approvals(
  p_settled_before timestamptz, p_after_settled timestamptz, p_after_id uuid, p_limit integer
) RETURNS TABLE (tenant_id text, id uuid, run_id uuid, settled_at timestamptz)
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
  SELECT a.tenant_id, a.id, a.run_id, a.settled_at
  FROM public.approvals a
  WHERE a.status IN ('approved', 'rejected', 'expired') AND a.consumed_seq IS NULL
    AND a.settled_at < p_settled_before
    AND (p_after_settled IS NULL OR (a.settled_at, a.id) > (p_after_settled, p_after_id))
    AND EXISTS (
      SELECT 1 FROM public.runs r
      WHERE r.id = a.run_id AND r.status = 'waiting' AND r.waiting_on->>'approvalId' = a.id::text
    )
  ORDER BY a.settled_at, a.id
  LIMIT least(greatest(p_limit, 1), 1000)
$$;
--> statement-breakpoint
DROP FUNCTION IF EXISTS weave_runs_to_reconcile(text[], timestamptz, integer);
--> statement-breakpoint
REVOKE ALL ON FUNCTION weave_runs_in_status(text, timestamptz, timestamptz, uuid, integer) FROM PUBLIC;
--> statement-breakpoint
REVOKE ALL ON FUNCTION weave_elapsed_timers(timestamptz, timestamptz, uuid, integer) FROM PUBLIC;
--> statement-breakpoint
REVOKE ALL ON FUNCTION weave_pending_resumes(timestamptz, timestamptz, uuid, integer) FROM PUBLIC;
--> statement-breakpoint
REVOKE ALL ON FUNCTION weave_unresumed_approvals(timestamptz, timestamptz, uuid, integer) FROM PUBLIC;
--> statement-breakpoint
GRANT EXECUTE ON FUNCTION weave_runs_in_status(text, timestamptz, timestamptz, uuid, integer) TO weave_app;
--> statement-breakpoint
GRANT EXECUTE ON FUNCTION weave_elapsed_timers(timestamptz, timestamptz, uuid, integer) TO weave_app;
--> statement-breakpoint
GRANT EXECUTE ON FUNCTION weave_pending_resumes(timestamptz, timestamptz, uuid, integer) TO weave_app;
--> statement-breakpoint
GRANT EXECUTE ON FUNCTION weave_unresumed_approvals(timestamptz, timestamptz, uuid, integer) TO weave_app;
