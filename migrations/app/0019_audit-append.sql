-- Appends an audit event to its tenant's chain in one statement, so the chain's lock (held
-- until commit) is held for this call and the COMMIT only, not for three round trips. The
-- caller sends the canonical JSON the hash covers with two markers where the seq and the
-- previous hash go (it cannot know them before the lock); the function fills them in from the
-- chain's head and hashes as auditHash does: sha256(prevHash || canonical JSON), hex. The caller
-- recomputes the hash from the seq and previous hash returned and refuses a mismatch, which
-- rolls the append back with its transaction.
CREATE OR REPLACE FUNCTION weave_append_audit(
  p_tenant text, p_id uuid, p_at timestamptz, p_actor text, p_action text,
  p_target_kind text, p_target_id text, p_request_id text, p_ip text, p_details jsonb,
  p_body text, p_seq_marker text, p_prev_marker text
) RETURNS TABLE (seq bigint, prev_hash text, hash text) LANGUAGE plpgsql AS $$
DECLARE
  v_seq bigint;
  v_prev text;
  v_hash text;
BEGIN
  PERFORM pg_advisory_xact_lock(hashtext('audit:' || p_tenant));
  -- A new query after the lock: it sees every append committed before the lock was granted.
  SELECT a.seq, a.hash INTO v_seq, v_prev FROM audit_events a
    WHERE a.tenant_id = p_tenant ORDER BY a.seq DESC LIMIT 1;
  v_seq := coalesce(v_seq, 0) + 1;
  v_prev := coalesce(v_prev, repeat('0', 64));
  v_hash := encode(sha256(convert_to(v_prev || replace(replace(p_body,
    '"' || p_seq_marker || '"', v_seq::text), p_prev_marker, v_prev), 'UTF8')), 'hex');
  INSERT INTO audit_events (id, tenant_id, seq, at, actor, action, target_kind, target_id,
    request_id, ip, details, prev_hash, hash)
  VALUES (p_id, p_tenant, v_seq, p_at, p_actor, p_action, p_target_kind, p_target_id,
    p_request_id, p_ip, p_details, v_prev, v_hash);
  RETURN QUERY SELECT v_seq, v_prev, v_hash;
END
$$;
--> statement-breakpoint
-- Replaced by weave_append_audit, which takes the lock and reads the head itself.
DROP FUNCTION IF EXISTS weave_audit_head(text);
