-- A decision in two statements, neither inside a transaction of the caller: a read without locks,
-- the caller's checks (the approver rule, the material, the input's schema), then one write that
-- takes the locks and records the decision only if what the caller checked still holds. It took
-- four round trips (BEGIN with the settings, the locked read, the write, COMMIT), with the run's
-- lock held across the three after the first while the API answered other requests; under load
-- that wait was most of a decision's time before its run could resume.

-- What a decision is checked against, read without locks: the approval, whether it is past its
-- expiry (the database's clock), the run's starter (separation of duties), its earlier decisions
-- oldest first (at, id) as withDecisions orders them, and whether another approval opened with
-- it (the calls of one agent turn) is still pending. Sets the tenant for row-level security
-- itself, local to the statement's transaction, and runs as the caller (SECURITY INVOKER), as
-- weave_read_approval does. No row when the tenant has no such approval.
CREATE FUNCTION weave_read_approval_for_decision(p_tenant text, p_approval uuid)
RETURNS TABLE (approval approvals, is_past_expiry boolean, run_created_by text, decisions json,
  has_pending_sibling boolean)
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM set_config('weave.tenant', p_tenant, true);
  RETURN QUERY
  SELECT a, a.expires_at <= now(), r.created_by,
    coalesce(
      (SELECT json_agg(d ORDER BY d.at, d.id) FROM approval_decisions d
       WHERE d.tenant_id = p_tenant AND d.approval_id = p_approval),
      '[]'::json),
    a.call_id <> '' AND EXISTS (
      SELECT 1 FROM approvals s
      WHERE s.tenant_id = p_tenant AND s.run_id = a.run_id AND s.step = a.step
        AND s.seq = a.seq AND s.id <> a.id AND (s.status = 'pending') IS TRUE)
  FROM approvals a JOIN runs r ON r.tenant_id = p_tenant AND r.id = a.run_id
  WHERE a.tenant_id = p_tenant AND a.id = p_approval;
END
$$;
--> statement-breakpoint

-- Records a decision the caller checked against weave_read_approval_for_decision's read, in one
-- statement. It locks the approval's run row, then the approval, in the order every path takes
-- them (approval-rows.ts), so it never waits on a worker in the opposite order. Then, under both
-- locks, what the caller's checks rested on must be unchanged: the approval still pending, not
-- past its expiry, with the `p_decisions_read` decisions the caller saw (decisions are only ever
-- added, so a count that matches is the same set). When it is not, nothing is written and the
-- outcome is `changed`: the caller reads again and checks again. When it is, the decision is
-- inserted; `p_settle_as` (approved, rejected or null) moves the approval from pending; the
-- run event (`p_event`, the `approval.decided` data) and the pending audit row (`p_audit`, the
-- columns of audit_pending) are written with it, each when given. Each statement here takes its
-- own snapshot after the locks, so the pending siblings it reports (the run resumes once none is
-- left) are those no other decision can change before this one commits: of two decisions
-- settling the last two approvals of a turn, exactly one sees none. The decision's `at` and
-- the approval's `settled_at` are `now()`: the start of the transaction that records them, this
-- statement's own when it runs alone (a decision with a bearer token), an approval link's when it
-- runs in that transaction. Sets the tenant for row-level security itself and runs as the caller,
-- as the read does. Returns
-- {outcome: 'recorded', decision, settled (null unless settled now), has_pending_sibling} or
-- {outcome: 'changed'}; `missing` when the approval is gone.
CREATE FUNCTION weave_decide_approval(
  p_tenant text, p_approval uuid, p_decisions_read integer, p_subject text, p_decision text,
  p_comment text, p_input jsonb, p_idempotency_key text, p_request_hash text, p_settle_as text,
  p_event jsonb, p_audit jsonb)
RETURNS json
LANGUAGE plpgsql AS $$
DECLARE
  v_run_id uuid;
  v_approval approvals;
  v_decision approval_decisions;
  v_settled approvals;
BEGIN
  PERFORM set_config('weave.tenant', p_tenant, true);
  SELECT r.id INTO v_run_id
  FROM runs r JOIN approvals a ON a.run_id = r.id
  WHERE a.tenant_id = p_tenant AND a.id = p_approval AND r.tenant_id = p_tenant
  FOR NO KEY UPDATE OF r;
  IF NOT FOUND THEN
    RETURN json_build_object('outcome', 'missing');
  END IF;
  SELECT * INTO v_approval FROM approvals a
  WHERE a.tenant_id = p_tenant AND a.id = p_approval
  FOR UPDATE;
  IF NOT FOUND THEN
    RETURN json_build_object('outcome', 'missing');
  END IF;
  IF v_approval.status <> 'pending' OR v_approval.expires_at <= now()
     OR (SELECT count(*) FROM approval_decisions d
         WHERE d.tenant_id = p_tenant AND d.approval_id = p_approval) <> p_decisions_read THEN
    RETURN json_build_object('outcome', 'changed');
  END IF;

  INSERT INTO approval_decisions (tenant_id, approval_id, subject, decision, comment, input,
    idempotency_key, request_hash)
  VALUES (p_tenant, p_approval, p_subject, p_decision, p_comment, p_input, p_idempotency_key,
    p_request_hash)
  RETURNING * INTO v_decision;
  IF p_settle_as IS NOT NULL THEN
    UPDATE approvals SET status = p_settle_as, settled_at = now()
    WHERE tenant_id = p_tenant AND id = p_approval AND (status = 'pending') IS TRUE
    RETURNING * INTO v_settled;
    -- The lock and the check above make this unreachable; raising rolls the decision back.
    IF NOT FOUND THEN
      RAISE EXCEPTION 'approval % was not pending under its lock', p_approval;
    END IF;
  END IF;
  IF p_audit IS NOT NULL THEN
    INSERT INTO audit_pending (id, tenant_id, at, actor, action, target_kind, target_id,
      request_id, ip, details, body, seq_marker, prev_marker)
    SELECT e.id, p_tenant, e.at, e.actor, e.action, e.target_kind, e.target_id, e.request_id,
      e.ip, e.details, e.body, e.seq_marker, e.prev_marker
    FROM jsonb_populate_record(NULL::audit_pending, p_audit) e;
  END IF;
  IF p_event IS NOT NULL THEN
    PERFORM weave_append_run_event(p_tenant, v_run_id, 'approval.decided', p_event);
  END IF;

  RETURN json_build_object(
    'outcome', 'recorded',
    'decision', row_to_json(v_decision),
    'settled', CASE WHEN p_settle_as IS NULL THEN NULL ELSE row_to_json(v_settled) END,
    'has_pending_sibling', v_approval.call_id <> '' AND EXISTS (
      SELECT 1 FROM approvals s
      WHERE s.tenant_id = p_tenant AND s.run_id = v_approval.run_id AND s.step = v_approval.step
        AND s.seq = v_approval.seq AND s.id <> p_approval AND (s.status = 'pending') IS TRUE));
END
$$;
--> statement-breakpoint

-- weave_read_approval_for_decision and weave_decide_approval replace it.
DROP FUNCTION weave_lock_approval_for_decision(text, uuid);
