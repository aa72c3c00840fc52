-- An anchor signs its tenant's head as it is, and the database refuses any other row, so not even
-- the runtime login (weave_app, which may insert anchors) can store an anchor of a past head, of
-- a seq the chain never reached, or of a hash the chain never had. Under the chain's lock (the
-- one appends and anchorAuditHead take; advisory locks are reentrant, so anchorAuditHead's own
-- insert just holds it again) the row's seq and hash must be those of the tenant's newest event,
-- 0 and the genesis hash while it has none, and its seq no lower than the tenant's newest
-- anchor's: a chain cut below an anchor gets no anchor of the shorter head. The reads are new
-- queries after the lock, so they see every append committed before it was granted. SECURITY
-- DEFINER reads the chain and the anchors whatever the caller's policies; the row's tenant
-- itself still passes the table's policy as the caller.
CREATE OR REPLACE FUNCTION weave_check_audit_anchor() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
  v_seq bigint;
  v_hash text;
  v_anchored bigint;
BEGIN
  PERFORM pg_advisory_xact_lock(hashtext('audit:' || NEW.tenant_id));
  SELECT a.seq, a.hash INTO v_seq, v_hash FROM public.audit_events a
    WHERE a.tenant_id = NEW.tenant_id ORDER BY a.seq DESC LIMIT 1;
  v_seq := coalesce(v_seq, 0);
  v_hash := coalesce(v_hash, repeat('0', 64));
  IF NEW.seq IS DISTINCT FROM v_seq OR NEW.hash IS DISTINCT FROM v_hash THEN
    RAISE EXCEPTION 'an audit anchor must sign its tenant''s head: seq % with its hash, not seq %',
      v_seq, NEW.seq
      USING ERRCODE = 'check_violation', TABLE = 'audit_anchors';
  END IF;
  SELECT max(a.seq) INTO v_anchored FROM public.audit_anchors a
    WHERE a.tenant_id = NEW.tenant_id;
  IF NEW.seq < v_anchored THEN
    RAISE EXCEPTION 'an audit anchor may not go back: the tenant''s newest anchor signs seq %, not %',
      v_anchored, NEW.seq
      USING ERRCODE = 'check_violation', TABLE = 'audit_anchors';
  END IF;
  RETURN NEW;
END
$$;
--> statement-breakpoint
REVOKE ALL ON FUNCTION weave_check_audit_anchor() FROM PUBLIC;
--> statement-breakpoint
CREATE TRIGGER audit_anchors_sign_the_head
  BEFORE INSERT ON audit_anchors
  FOR EACH ROW EXECUTE FUNCTION weave_check_audit_anchor();
