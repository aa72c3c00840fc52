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
