-- Privileges of the app role, granted per database (roles are cluster-wide, grants are not).
-- Every table a later migration adds needs its own grant in that migration; without one the app role
-- gets "permission denied", never another tenant's rows.
GRANT SELECT, INSERT, UPDATE, DELETE ON
  tenants, graphs, graph_versions, runs, run_events, approvals, approval_decisions
TO weave_app;
--> statement-breakpoint
-- The audit log is append-only for the app role by privilege ...
GRANT SELECT, INSERT ON audit_events TO weave_app;
--> statement-breakpoint
-- ... and for the owner by triggers: UPDATE, DELETE and TRUNCATE are refused whoever runs them.
CREATE OR REPLACE FUNCTION weave_audit_refuse_change() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'audit_events is append-only: % refused', TG_OP
    USING ERRCODE = 'insufficient_privilege';
END
$$;
--> statement-breakpoint
CREATE TRIGGER audit_events_refuse_update_delete
  BEFORE UPDATE OR DELETE ON audit_events
  FOR EACH STATEMENT EXECUTE FUNCTION weave_audit_refuse_change();
--> statement-breakpoint
CREATE TRIGGER audit_events_refuse_truncate
  BEFORE TRUNCATE ON audit_events
  FOR EACH STATEMENT EXECUTE FUNCTION weave_audit_refuse_change();
--> statement-breakpoint
-- The reconciler's only cross-tenant reads: SECURITY DEFINER functions owned by the owner, so
-- they see every tenant, returning ids and statuses only; the app role may execute them.
CREATE OR REPLACE FUNCTION weave_runs_to_reconcile(
  p_statuses text[], p_updated_before timestamptz, p_limit integer
) RETURNS TABLE (
  tenant_id text, id uuid, status text, waiting_on jsonb, updated_at timestamptz
)
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
  SELECT r.tenant_id, r.id, r.status, r.waiting_on, r.updated_at
  FROM public.runs r
  WHERE r.status = ANY (p_statuses) AND r.updated_at < p_updated_before
  ORDER BY r.updated_at
  LIMIT least(greatest(p_limit, 1), 1000)
$$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION weave_overdue_approvals(p_now timestamptz, p_limit integer)
RETURNS TABLE (tenant_id text, id uuid, run_id uuid, expires_at timestamptz)
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
  SELECT a.tenant_id, a.id, a.run_id, a.expires_at
  FROM public.approvals a
  WHERE a.status = 'pending' AND a.expires_at IS NOT NULL AND a.expires_at <= p_now
  ORDER BY a.expires_at
  LIMIT least(greatest(p_limit, 1), 1000)
$$;
--> statement-breakpoint
REVOKE ALL ON FUNCTION weave_runs_to_reconcile(text[], timestamptz, integer) FROM PUBLIC;
--> statement-breakpoint
REVOKE ALL ON FUNCTION weave_overdue_approvals(timestamptz, integer) FROM PUBLIC;
--> statement-breakpoint
GRANT EXECUTE ON FUNCTION weave_runs_to_reconcile(text[], timestamptz, integer) TO weave_app;
--> statement-breakpoint
GRANT EXECUTE ON FUNCTION weave_overdue_approvals(timestamptz, integer) TO weave_app;
