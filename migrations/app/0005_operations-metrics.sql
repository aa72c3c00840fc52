-- Cross-tenant aggregates for /metrics: SECURITY DEFINER functions owned by the owner, so they see
-- every tenant, returning counts only, never a row; the app role may execute them.
CREATE OR REPLACE FUNCTION weave_run_status_counts()
RETURNS TABLE (status text, runs bigint)
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
  SELECT r.status, count(*) FROM public.runs r GROUP BY r.status
$$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION weave_pending_approval_stats()
RETURNS TABLE (pending bigint, oldest_created_at timestamptz)
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
  SELECT count(*), min(a.created_at) FROM public.approvals a WHERE a.status = 'pending'
$$;
--> statement-breakpoint
REVOKE ALL ON FUNCTION weave_run_status_counts() FROM PUBLIC;
--> statement-breakpoint
REVOKE ALL ON FUNCTION weave_pending_approval_stats() FROM PUBLIC;
--> statement-breakpoint
GRANT EXECUTE ON FUNCTION weave_run_status_counts() TO weave_app;
--> statement-breakpoint
GRANT EXECUTE ON FUNCTION weave_pending_approval_stats() TO weave_app;
--> statement-breakpoint
-- Live run events: every committed run event wakes the API processes streaming that run (SSE).
-- The payload is the run id only; listeners read the events through tenant-scoped queries.
-- NOTIFY is delivered at commit, in commit order, and never for a rolled-back insert.
CREATE OR REPLACE FUNCTION weave_notify_run_event() RETURNS trigger
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $$
BEGIN
  PERFORM pg_notify('weave_run_events', NEW.run_id::text);
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER run_events_notify
  AFTER INSERT ON run_events
  FOR EACH ROW EXECUTE FUNCTION weave_notify_run_event();
