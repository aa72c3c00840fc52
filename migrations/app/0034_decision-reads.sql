-- The reads a decision starts with (decideApproval), in one statement of the caller's
-- transaction: it locks the approval's run row, then the approval, in the order every path takes
-- them (approval-rows.ts), so it never waits on a worker in the opposite order; then it reads the
-- approval's earlier decisions, oldest first (at, id), as withDecisions orders them. Each
-- statement takes its own snapshot after the lock before it, as separate statements would. It
-- returns no row when the tenant has no such approval. It runs as the caller (SECURITY INVOKER),
-- so row-level security applies under the transaction's `weave.tenant`, which it leaves as set.
CREATE OR REPLACE FUNCTION weave_lock_approval_for_decision(p_tenant text, p_approval uuid)
RETURNS TABLE (approval approvals, is_past_expiry boolean, run_created_by text, decisions json)
LANGUAGE plpgsql AS $$
DECLARE
  v_created_by text;
  v_approval approvals;
BEGIN
  SELECT r.created_by INTO v_created_by
  FROM runs r JOIN approvals a ON a.run_id = r.id
  WHERE a.tenant_id = p_tenant AND a.id = p_approval
  FOR NO KEY UPDATE OF r;
  IF NOT FOUND THEN
    RETURN;
  END IF;
  SELECT * INTO v_approval FROM approvals a
  WHERE a.tenant_id = p_tenant AND a.id = p_approval
  FOR UPDATE;
  IF NOT FOUND THEN
    RETURN;
  END IF;
  RETURN QUERY
  SELECT v_approval, v_approval.expires_at <= now(), v_created_by,
    coalesce(
      (SELECT json_agg(d ORDER BY d.at, d.id) FROM approval_decisions d
       WHERE d.tenant_id = p_tenant AND d.approval_id = p_approval),
      '[]'::json);
END
$$;
