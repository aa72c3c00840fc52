ALTER TABLE "audit_pending" ADD COLUMN "xact" bigint DEFAULT (pg_current_xact_id()::text)::bigint NOT NULL;--> statement-breakpoint
ALTER TABLE "audit_pending" ADD COLUMN "position" bigint NOT NULL GENERATED ALWAYS AS IDENTITY (sequence name "audit_pending_position_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1);--> statement-breakpoint
CREATE INDEX "audit_pending_tenant_position" ON "audit_pending" USING btree ("tenant_id","position");--> statement-breakpoint
-- Audit events are chained after the commit of the change they record, many at a time.
--
-- Until now a deferred trigger chained each pending event inside its transaction's COMMIT: it
-- took the tenant's chain lock, and a transaction-scoped lock is released only after the commit
-- record is flushed, so a tenant's run starts and decisions committed one WAL flush at a time
-- (bench/e2e/README.md: 16 decisions at once waited in line for it). Now the change and its
-- pending event commit together without the lock (group commit shares their flushes), and then
-- weave_chain_audit, called by the writer once its transaction has committed, chains every
-- pending event of the tenant in one transaction: one lock and one flush for all the events
-- committed meanwhile. A writer whose chain call finds its events already chained by another's
-- takes no lock. An event whose writer stopped between the two (a crash) stays pending, durable,
-- until any later chain call of its tenant or the worker's reconciler chains it.
DROP TRIGGER audit_pending_chain_at_commit ON audit_pending;
--> statement-breakpoint
DROP FUNCTION weave_chain_pending_audit();
--> statement-breakpoint
-- Chains the tenant's pending audit events, a transaction's events one after the other in the
-- order it appended them, transactions in the order of their first event: under the tenant's
-- chain lock, the head is read, then each event gets
-- the next seq and sha256(prevHash || canonical JSON) with its markers filled in, as
-- weave_append_audit and auditHash do, is appended to audit_events and removed from
-- audit_pending. Each query runs after the lock is granted, so it sees every event and append
-- committed before. The caller must be in the tenant (weave.tenant); the function runs as the
-- owner to remove the pending rows. Returns how many events it chained.
CREATE FUNCTION weave_chain_audit(p_tenant text) RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
  v_seq bigint;
  v_prev text;
  v_hash text;
  v_ids uuid[] := '{}';
  p record;
BEGIN
  IF p_tenant IS DISTINCT FROM current_setting('weave.tenant', true) THEN
    RAISE EXCEPTION 'weave_chain_audit chains the events of the transaction''s own tenant only'
      USING ERRCODE = 'insufficient_privilege';
  END IF;
  -- Already chained by another writer's call: no lock, no write, no flush.
  IF NOT EXISTS (SELECT 1 FROM public.audit_pending a WHERE a.tenant_id = p_tenant) THEN
    RETURN 0;
  END IF;
  PERFORM pg_advisory_xact_lock(hashtext('audit:' || p_tenant));
  SELECT a.seq, a.hash INTO v_seq, v_prev FROM public.audit_events a
    WHERE a.tenant_id = p_tenant ORDER BY a.seq DESC LIMIT 1;
  v_seq := coalesce(v_seq, 0);
  v_prev := coalesce(v_prev, repeat('0', 64));
  FOR p IN
    SELECT * FROM public.audit_pending a WHERE a.tenant_id = p_tenant
    ORDER BY min(a.position) OVER (PARTITION BY a.xact), a.position
  LOOP
    v_seq := v_seq + 1;
    v_hash := encode(sha256(convert_to(v_prev || replace(replace(p.body,
      '"' || p.seq_marker || '"', v_seq::text), p.prev_marker, v_prev), 'UTF8')), 'hex');
    INSERT INTO public.audit_events (id, tenant_id, seq, at, actor, action, target_kind,
      target_id, request_id, ip, details, prev_hash, hash)
    VALUES (p.id, p_tenant, v_seq, p.at, p.actor, p.action, p.target_kind, p.target_id,
      p.request_id, p.ip, p.details, v_prev, v_hash);
    v_prev := v_hash;
    v_ids := v_ids || p.id;
  END LOOP;
  DELETE FROM public.audit_pending a WHERE a.id = ANY (v_ids);
  RETURN cardinality(v_ids);
END
$$;
--> statement-breakpoint
REVOKE ALL ON FUNCTION weave_chain_audit(text) FROM PUBLIC;
--> statement-breakpoint
GRANT EXECUTE ON FUNCTION weave_chain_audit(text) TO weave_app;
--> statement-breakpoint
-- The tenants that have pending audit events, for the worker's reconciler, which is no tenant's:
-- it chains each of them in a transaction of that tenant. Only tenant ids leave the function.
CREATE FUNCTION weave_audit_pending_tenants() RETURNS SETOF text
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
  SELECT DISTINCT a.tenant_id FROM public.audit_pending a
$$;
--> statement-breakpoint
REVOKE ALL ON FUNCTION weave_audit_pending_tenants() FROM PUBLIC;
--> statement-breakpoint
GRANT EXECUTE ON FUNCTION weave_audit_pending_tenants() TO weave_app;
