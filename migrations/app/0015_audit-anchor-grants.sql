-- The app role adds anchors and marks them sent to the anchor webhook; what was signed (seq, hash,
-- time, key, signature) it cannot change, and it cannot delete an anchor.
GRANT SELECT, INSERT ON audit_anchors TO weave_app;
--> statement-breakpoint
GRANT UPDATE (published_at) ON audit_anchors TO weave_app;
--> statement-breakpoint
-- The anchor job's cross-tenant read: each tenant whose audit chain grew past its newest anchor,
-- with the head's seq, a keyset page by tenant. A loose index scan over audit_events_tenant_seq
-- visits one row per tenant, not every event.
CREATE OR REPLACE FUNCTION weave_audit_heads_to_anchor(p_after_tenant text, p_limit integer)
RETURNS TABLE (tenant_id text, seq bigint)
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
  WITH RECURSIVE tenants AS (
    (SELECT e.tenant_id FROM public.audit_events e
      WHERE e.tenant_id > coalesce(p_after_tenant, '') ORDER BY e.tenant_id LIMIT 1)
    UNION ALL
    SELECT (SELECT e.tenant_id FROM public.audit_events e
      WHERE e.tenant_id > t.tenant_id ORDER BY e.tenant_id LIMIT 1)
    FROM tenants t WHERE t.tenant_id IS NOT NULL
  ), heads AS (
    SELECT t.tenant_id,
      (SELECT max(e.seq) FROM public.audit_events e WHERE e.tenant_id = t.tenant_id) AS seq,
      (SELECT max(a.seq) FROM public.audit_anchors a WHERE a.tenant_id = t.tenant_id) AS anchored
    FROM tenants t WHERE t.tenant_id IS NOT NULL
  )
  SELECT h.tenant_id, h.seq FROM heads h
  WHERE h.anchored IS NULL OR h.seq > h.anchored
  ORDER BY h.tenant_id
  LIMIT least(greatest(p_limit, 1), 1000)
$$;
--> statement-breakpoint
-- The publisher's cross-tenant read: anchors not yet accepted by the anchor webhook, oldest first.
CREATE OR REPLACE FUNCTION weave_unpublished_audit_anchors(p_limit integer)
RETURNS TABLE (tenant_id text, id uuid)
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
  SELECT a.tenant_id, a.id FROM public.audit_anchors a
  WHERE a.published_at IS NULL
  ORDER BY a.at, a.id
  LIMIT least(greatest(p_limit, 1), 1000)
$$;
--> statement-breakpoint
REVOKE ALL ON FUNCTION weave_audit_heads_to_anchor(text, integer) FROM PUBLIC;
--> statement-breakpoint
REVOKE ALL ON FUNCTION weave_unpublished_audit_anchors(integer) FROM PUBLIC;
--> statement-breakpoint
GRANT EXECUTE ON FUNCTION weave_audit_heads_to_anchor(text, integer) TO weave_app;
--> statement-breakpoint
GRANT EXECUTE ON FUNCTION weave_unpublished_audit_anchors(integer) TO weave_app;
