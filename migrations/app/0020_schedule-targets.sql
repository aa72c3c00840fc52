-- A graph target's version (null: each firing takes the graph's latest).
ALTER TABLE "schedules" ADD COLUMN "graph_version" integer;--> statement-breakpoint
-- The reconciler's cross-tenant read of schedules: active ones (neither paused nor deleted), by
-- id, a keyset page at a time; it rebuilds the job scheduler of any that Redis lost.
CREATE OR REPLACE FUNCTION weave_active_schedules(p_after_id uuid, p_limit integer)
RETURNS TABLE (tenant_id text, id uuid)
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
  SELECT s.tenant_id, s.id
  FROM public.schedules s
  WHERE NOT s.paused AND s.deleted_at IS NULL
    AND (p_after_id IS NULL OR s.id > p_after_id)
  ORDER BY s.id
  LIMIT least(greatest(p_limit, 1), 1000)
$$;
