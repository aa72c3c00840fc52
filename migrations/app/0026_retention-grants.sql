-- Retention (retention-prune.ts): the app role reads and sets its tenant's policy, and deletes a
-- finished run's rows. The audit log keeps its append-only grants: retention never prunes it.
GRANT SELECT, INSERT, UPDATE ON retention_policies TO weave_app;
--> statement-breakpoint
GRANT DELETE ON webhook_deliveries, webhook_attempts, approval_tokens TO weave_app;
--> statement-breakpoint
GRANT UPDATE (run_id) ON schedule_firings TO weave_app;
--> statement-breakpoint
-- Deleting a run checks the rows that refer to it; without these, each check scans the table.
CREATE INDEX IF NOT EXISTS webhook_deliveries_run_id ON webhook_deliveries (run_id);
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS schedule_firings_run_id ON schedule_firings (run_id)
  WHERE run_id IS NOT NULL;
--> statement-breakpoint
-- Retention's cross-tenant reads, keyset pages over their partial indexes: finished runs whose
-- policy was not applied since their last checkpoint (with their graph's and tenant's policies),
-- and runs whose time to be deleted has come.
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
  WHERE r.status IN ('completed', 'failed', 'cancelled')
    AND r.retained_seq IS DISTINCT FROM r.checkpoint_seq
    AND r.finished_at IS NOT NULL
    AND (p_after_finished IS NULL OR (r.finished_at, r.id) > (p_after_finished, p_after_id))
  ORDER BY r.finished_at, r.id
  LIMIT least(greatest(p_limit, 1), 1000)
$$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION weave_expired_runs(
  p_now timestamptz, p_after_expires timestamptz, p_after_id uuid, p_limit integer
) RETURNS TABLE (tenant_id text, id uuid, expires_at timestamptz)
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
  SELECT r.tenant_id, r.id, r.expires_at FROM public.runs r
  WHERE r.expires_at IS NOT NULL AND r.expires_at <= p_now
    AND r.status IN ('completed', 'failed', 'cancelled')
    AND (p_after_expires IS NULL OR (r.expires_at, r.id) > (p_after_expires, p_after_id))
  ORDER BY r.expires_at, r.id
  LIMIT least(greatest(p_limit, 1), 1000)
$$;
--> statement-breakpoint
REVOKE ALL ON FUNCTION weave_runs_to_retain(timestamptz, uuid, integer) FROM PUBLIC;
--> statement-breakpoint
REVOKE ALL ON FUNCTION weave_expired_runs(timestamptz, timestamptz, uuid, integer) FROM PUBLIC;
--> statement-breakpoint
GRANT EXECUTE ON FUNCTION weave_runs_to_retain(timestamptz, uuid, integer) TO weave_app;
--> statement-breakpoint
GRANT EXECUTE ON FUNCTION weave_expired_runs(timestamptz, timestamptz, uuid, integer) TO weave_app;
