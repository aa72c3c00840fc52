-- The two row triggers every run fires run with the search path of the statement that fired them,
-- and a run's read is one function.
--
-- weave_notify_run_event (after each of a run's eight event rows) and weave_run_row_rules (at a
-- run's insert, claim and end) each carried `SET search_path`. Postgres then saves the session's
-- settings, sets the path, restores it after the call and looks its namespaces up again: 2.3% of
-- the instructions Postgres spent in a run's functions (bench/e2e/README.md, sixteenth round).
-- Neither is SECURITY DEFINER, so each runs with the privileges of whoever wrote the row, and the
-- path cannot lend a function more than its caller has. The functions that run with their
-- owner's privileges all set their own path, which a trigger they fire inherits. The notify
-- trigger names its one table with its schema (public.run_event_watches), so a table of the same
-- name earlier on a path is never read; the functions and operators both bodies use are
-- pg_catalog's, which a path searches first unless it names pg_catalog later, and a caller whose
-- path does that changes only what runs with its own privileges.
ALTER FUNCTION weave_notify_run_event() RESET search_path;
--> statement-breakpoint
ALTER FUNCTION weave_run_row_rules() RESET search_path;
--> statement-breakpoint
-- A run's read (a GET) in one plpgsql call: the pending approvals are a subquery of the answer
-- instead of a second function, and the tenant is set by an assignment, which plpgsql evaluates
-- without starting an executor. The answer and the checkpoint's lookup are migration 0030's.
CREATE OR REPLACE FUNCTION weave_read_run(p_tenant text, p_run uuid, p_ns_head text)
RETURNS TABLE (run runs, pending_approval_ids uuid[], checkpoint text) LANGUAGE plpgsql AS $$
DECLARE
  v_run runs;
  v_ns text;
  v_tenant text;
BEGIN
  v_tenant := set_config('weave.tenant', p_tenant, true);
  SELECT * INTO v_run FROM runs r WHERE r.tenant_id = p_tenant AND r.id = p_run;
  IF NOT FOUND THEN
    RETURN;
  END IF;
  v_ns := p_ns_head || v_run.graph_name;
  RETURN QUERY
  SELECT v_run,
    (SELECT coalesce(array_agg(a.id ORDER BY a.created_at DESC, a.id DESC), '{}')
     FROM approvals a
     WHERE a.tenant_id = p_tenant AND a.run_id = p_run AND a.status = 'pending'),
    (SELECT k.value FROM weave_kv k
     WHERE k.tenant_id = p_tenant AND k.ns = v_ns AND k.key = p_run::text);
END
$$;
