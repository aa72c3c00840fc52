-- A run as `GET /v1/runs/{id}` shows it, in one statement outside a transaction: each function
-- sets the tenant for row-level security itself (local to the statement's own transaction), as
-- weave_save_step does, so the read needs no BEGIN, set_config and COMMIT of its own. They run
-- as the caller (SECURITY INVOKER): the app role's policies bind them like any other query.
CREATE OR REPLACE FUNCTION weave_run_row(p_tenant text, p_run uuid)
RETURNS SETOF runs LANGUAGE plpgsql AS $$
BEGIN
  PERFORM set_config('weave.tenant', p_tenant, true);
  RETURN QUERY SELECT * FROM runs WHERE tenant_id = p_tenant AND id = p_run;
END
$$;
--> statement-breakpoint
-- The ids of a run's pending approvals, newest first (as listApprovals orders them).
CREATE OR REPLACE FUNCTION weave_pending_approval_ids(p_tenant text, p_run uuid)
RETURNS uuid[] LANGUAGE plpgsql AS $$
DECLARE
  v_ids uuid[];
BEGIN
  PERFORM set_config('weave.tenant', p_tenant, true);
  SELECT coalesce(array_agg(id ORDER BY created_at DESC, id DESC), '{}') INTO v_ids
  FROM approvals WHERE tenant_id = p_tenant AND run_id = p_run AND status = 'pending';
  RETURN v_ids;
END
$$;
