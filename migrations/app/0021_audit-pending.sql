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
-- Chains a pending audit event at its transaction's commit: the tenant's lock, then one statement
-- that reads the chain's head, fills in the seq and hash as weave_append_audit does
-- (sha256(prevHash || canonical JSON) with the markers replaced), appends the event to
-- audit_events and removes the pending row. That statement starts after the lock is granted, so
-- its snapshot sees every append committed before. Deferred triggers fire at COMMIT in the order
-- their rows were inserted, so a transaction's events keep their order, and the lock is taken at
-- commit and held only until it completes. The lock is an expression, not a query: plpgsql
-- evaluates it without the executor. The function runs as the owner to remove the pending row;
-- the row's tenant passed the table's policy when it was inserted.
CREATE OR REPLACE FUNCTION weave_chain_pending_audit() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
  v_locked text;
BEGIN
  v_locked := pg_advisory_xact_lock(hashtext('audit:' || NEW.tenant_id))::text;
  WITH head AS (
    SELECT coalesce(h.seq, 0) + 1 AS seq, coalesce(h.hash, repeat('0', 64)) AS prev
    FROM (SELECT 1) AS one LEFT JOIN LATERAL (
      SELECT a.seq, a.hash FROM public.audit_events a
      WHERE a.tenant_id = NEW.tenant_id ORDER BY a.seq DESC LIMIT 1
    ) AS h ON true
  ), appended AS (
    INSERT INTO public.audit_events (id, tenant_id, seq, at, actor, action, target_kind,
      target_id, request_id, ip, details, prev_hash, hash)
    SELECT NEW.id, NEW.tenant_id, head.seq, NEW.at, NEW.actor, NEW.action, NEW.target_kind,
      NEW.target_id, NEW.request_id, NEW.ip, NEW.details, head.prev,
      encode(sha256(convert_to(head.prev || replace(replace(NEW.body,
        '"' || NEW.seq_marker || '"', head.seq::text), NEW.prev_marker, head.prev), 'UTF8')), 'hex')
    FROM head
  )
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
