CREATE TABLE "audit_pending" (
	"id" uuid PRIMARY KEY NOT NULL,
	"tenant_id" text NOT NULL,
	"at" timestamp (3) with time zone NOT NULL,
	"actor" text NOT NULL,
	"action" text NOT NULL,
	"target_kind" text NOT NULL,
	"target_id" text NOT NULL,
	"request_id" text,
	"ip" text,
	"details" jsonb NOT NULL,
	"body" text NOT NULL,
	"seq_marker" text NOT NULL,
	"prev_marker" text NOT NULL
);
--> statement-breakpoint
ALTER TABLE "audit_pending" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE POLICY "tenant_isolation" ON "audit_pending" AS PERMISSIVE FOR ALL TO "weave_app" USING (tenant_id = current_setting('weave.tenant', true)) WITH CHECK (tenant_id = current_setting('weave.tenant', true));--> statement-breakpoint
-- The app role inserts pending events and may read its tenant's; it cannot change or remove one,
-- so an event inserted is chained at commit or rolls back with its transaction.
GRANT SELECT, INSERT ON audit_pending TO weave_app;
--> statement-breakpoint
-- Chains a pending audit event at its transaction's commit: the tenant's lock, the chain's head,
-- the seq and hash filled in as weave_append_audit does (sha256(prevHash || canonical JSON) with
-- the markers replaced), the insert into audit_events and the pending row's removal. Deferred
-- triggers fire at COMMIT in the order their rows were inserted, so a transaction's events keep
-- their order, and the lock is taken at commit and held only until it completes. It runs as the
-- owner to remove the pending row; the row's tenant passed the table's policy when it was inserted.
CREATE OR REPLACE FUNCTION weave_chain_pending_audit() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
  v_seq bigint;
  v_prev text;
  v_hash text;
BEGIN
  PERFORM pg_advisory_xact_lock(hashtext('audit:' || NEW.tenant_id));
  -- A new query after the lock: it sees every append committed before the lock was granted.
  SELECT a.seq, a.hash INTO v_seq, v_prev FROM public.audit_events a
    WHERE a.tenant_id = NEW.tenant_id ORDER BY a.seq DESC LIMIT 1;
  v_seq := coalesce(v_seq, 0) + 1;
  v_prev := coalesce(v_prev, repeat('0', 64));
  v_hash := encode(sha256(convert_to(v_prev || replace(replace(NEW.body,
    '"' || NEW.seq_marker || '"', v_seq::text), NEW.prev_marker, v_prev), 'UTF8')), 'hex');
  INSERT INTO public.audit_events (id, tenant_id, seq, at, actor, action, target_kind, target_id,
    request_id, ip, details, prev_hash, hash)
  VALUES (NEW.id, NEW.tenant_id, v_seq, NEW.at, NEW.actor, NEW.action, NEW.target_kind,
    NEW.target_id, NEW.request_id, NEW.ip, NEW.details, v_prev, v_hash);
  DELETE FROM public.audit_pending p WHERE p.id = NEW.id;
  RETURN NULL;
END
$$;
--> statement-breakpoint
REVOKE ALL ON FUNCTION weave_chain_pending_audit() FROM PUBLIC;
--> statement-breakpoint
CREATE CONSTRAINT TRIGGER audit_pending_chain_at_commit
  AFTER INSERT ON audit_pending
  DEFERRABLE INITIALLY DEFERRED
  FOR EACH ROW EXECUTE FUNCTION weave_chain_pending_audit();
