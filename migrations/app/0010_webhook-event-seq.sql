-- A delivery's data is the event's data with the run's id and the event's number. The number was
-- written as `seq`, which overwrote the `seq` some events carry themselves (a step's checkpoint
-- in step.completed, a timer's step in run.waiting); it is `eventSeq` now, and nothing of the
-- event's own data is replaced.
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
            || jsonb_build_object('runId', p_run, 'eventSeq', v_seq))
  FROM webhooks w
  WHERE w.tenant_id = p_tenant AND w.deleted_at IS NULL AND p_type = ANY (w.events);
  RETURN v_event;
END
$$;
--> statement-breakpoint
-- The delivery sweep's cross-tenant read, paged: pending deliveries due before a time, after a
-- (next attempt, id) cursor, ids only. Without a cursor a sweep saw only the first page, and
-- deliveries whose jobs were alive could fill it for ever.
DROP FUNCTION IF EXISTS weave_pending_webhook_deliveries(timestamptz, integer);
--> statement-breakpoint
CREATE OR REPLACE FUNCTION weave_pending_webhook_deliveries(
  p_due_before timestamptz, p_after_at timestamptz, p_after_id uuid, p_limit integer
) RETURNS TABLE (tenant_id text, id uuid, next_attempt_at timestamptz)
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
  SELECT d.tenant_id, d.id, d.next_attempt_at
  FROM public.webhook_deliveries d
  WHERE d.status = 'pending' AND d.next_attempt_at < p_due_before
    AND (p_after_at IS NULL OR (d.next_attempt_at, d.id) > (p_after_at, p_after_id))
  ORDER BY d.next_attempt_at, d.id
  LIMIT least(greatest(p_limit, 1), 1000)
$$;
--> statement-breakpoint
REVOKE ALL ON FUNCTION weave_pending_webhook_deliveries(timestamptz, timestamptz, uuid, integer) FROM PUBLIC;
--> statement-breakpoint
GRANT EXECUTE ON FUNCTION weave_pending_webhook_deliveries(timestamptz, timestamptz, uuid, integer) TO weave_app;
