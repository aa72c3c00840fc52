-- The head of a tenant's audit chain, read under the chain's lock in one statement: the lock
-- (the same key appendAudit and the anchors take) and then the read, which, being a separate
-- query of a volatile function, sees every chain append committed before the lock was granted.
-- One round trip fewer while the lock is held, which every audited change holds until commit.
CREATE OR REPLACE FUNCTION weave_audit_head(p_tenant text)
RETURNS TABLE (seq bigint, hash text) LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_advisory_xact_lock(hashtext('audit:' || p_tenant));
  RETURN QUERY SELECT a.seq, a.hash FROM audit_events a
    WHERE a.tenant_id = p_tenant ORDER BY a.seq DESC LIMIT 1;
END
$$;
