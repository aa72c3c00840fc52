-- A run as `GET /v1/runs/{id}` shows it, in one statement outside a transaction: its row, the ids
-- of its pending approvals (newest first, as weave_pending_approval_ids orders them) and the
-- stored text of its latest checkpoint, null when it has none. The caller passes how its store
-- names a graph's checkpoint namespace (the stored `ns` is p_ns_head followed by the graph's
-- name; the latest key is the run's id, docs/kernel.md, Checkpoints), so that naming is spelled
-- by the store alone. Like weave_run_row, it sets the tenant for row-level security itself
-- (local to the statement's own transaction) and runs as the caller (SECURITY INVOKER).
CREATE OR REPLACE FUNCTION weave_read_run(p_tenant text, p_run uuid, p_ns_head text)
RETURNS TABLE (run runs, pending_approval_ids uuid[], checkpoint text) LANGUAGE plpgsql AS $$
BEGIN
  PERFORM set_config('weave.tenant', p_tenant, true);
  RETURN QUERY
  SELECT r, weave_pending_approval_ids(p_tenant, r.id),
    (SELECT k.value FROM weave_kv k
     WHERE k.tenant_id = p_tenant AND k.ns = p_ns_head || r.graph_name AND k.key = r.id::text)
  FROM runs r WHERE r.tenant_id = p_tenant AND r.id = p_run;
END
$$;
