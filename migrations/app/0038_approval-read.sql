-- An approval with its decisions in one statement, outside any transaction of the caller: what an
-- approval step reads when its run resumes after a decision (settledDecision), which took four
-- round trips (BEGIN with the settings, the approval, its decisions, COMMIT) on the path from a
-- decision to its run's completion. The decisions come oldest first (at, id), as withDecisions
-- orders them. The function sets the tenant for row-level security itself, local to the
-- statement's own transaction, and runs as the caller (SECURITY INVOKER), as weave_read_run does.
-- No row when the tenant has no such approval.
CREATE FUNCTION weave_read_approval(p_tenant text, p_approval uuid)
RETURNS TABLE (approval approvals, decisions json)
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM set_config('weave.tenant', p_tenant, true);
  RETURN QUERY
  SELECT a, coalesce(
      (SELECT json_agg(d ORDER BY d.at, d.id) FROM approval_decisions d
       WHERE d.tenant_id = p_tenant AND d.approval_id = p_approval),
      '[]'::json)
  FROM approvals a
  WHERE a.tenant_id = p_tenant AND a.id = p_approval;
END
$$;
