-- A run as `GET /v1/runs/{id}` shows it, in one statement outside a transaction: its row, the ids
-- of its pending approvals (newest first, as weave_pending_approval_ids orders them) and the
-- stored text of its latest checkpoint, null when it has none. The caller passes how its store
-- names a graph's checkpoint namespace (the stored `ns` is p_ns_head followed by the graph's
-- name; the latest key is the run's id, docs/kernel.md, Checkpoints), so that naming is spelled
-- by the store alone. Like weave_run_row, it sets the tenant for row-level security itself
-- (local to the statement's own transaction) and runs as the caller (SECURITY INVOKER).
-- The checkpoint is read with the whole primary key as plain values: correlated to the run's
-- row, the cached generic plan of a session could scan weave_kv instead (2 ms a read at 10,000
-- rows, against 0.05 ms).
CREATE OR REPLACE FUNCTION weave_read_run(p_tenant text, p_run uuid, p_ns_head text)
RETURNS TABLE (run runs, pending_approval_ids uuid[], checkpoint text) LANGUAGE plpgsql AS $$
DECLARE
  v_run runs;
  v_ns text;
BEGIN
  PERFORM set_config('weave.tenant', p_tenant, true);
  SELECT * INTO v_run FROM runs r WHERE r.tenant_id = p_tenant AND r.id = p_run;
  IF NOT FOUND THEN
    RETURN;
  END IF;
  v_ns := p_ns_head || v_run.graph_name;
  RETURN QUERY
  SELECT v_run, weave_pending_approval_ids(p_tenant, p_run),
    (SELECT k.value FROM weave_kv k
     WHERE k.tenant_id = p_tenant AND k.ns = v_ns AND k.key = p_run::text);
END
$$;
