-- Privileges of the app role on the webhook and approval-link tables. Attempts are a record:
-- the app role may add them, never change them. Webhooks are soft-deleted (deleted_at).
GRANT SELECT, INSERT, UPDATE ON webhooks, webhook_deliveries, approval_tokens TO weave_app;
--> statement-breakpoint
GRANT SELECT, INSERT ON webhook_attempts TO weave_app;
--> statement-breakpoint
-- The delivery sweep's cross-tenant read: pending deliveries due before a time, ids only.
CREATE OR REPLACE FUNCTION weave_pending_webhook_deliveries(
  p_due_before timestamptz, p_limit integer
) RETURNS TABLE (tenant_id text, id uuid, next_attempt_at timestamptz)
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
  SELECT d.tenant_id, d.id, d.next_attempt_at
  FROM public.webhook_deliveries d
  WHERE d.status = 'pending' AND d.next_attempt_at < p_due_before
  ORDER BY d.next_attempt_at
  LIMIT least(greatest(p_limit, 1), 1000)
$$;
--> statement-breakpoint
-- An approval link carries no bearer token, so its tenant is unknown until its token is found:
-- this returns the one row whose hash the caller already knows, never a list.
CREATE OR REPLACE FUNCTION weave_approval_token(p_token_hash text)
RETURNS TABLE (
  tenant_id text, id uuid, approval_id uuid, decision text, token_hash text,
  material_hash text, recipient text, expires_at timestamptz, used_at timestamptz
)
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
  SELECT t.tenant_id, t.id, t.approval_id, t.decision, t.token_hash,
    t.material_hash, t.recipient, t.expires_at, t.used_at
  FROM public.approval_tokens t
  WHERE t.token_hash = p_token_hash
$$;
--> statement-breakpoint
REVOKE ALL ON FUNCTION weave_pending_webhook_deliveries(timestamptz, integer) FROM PUBLIC;
--> statement-breakpoint
REVOKE ALL ON FUNCTION weave_approval_token(text) FROM PUBLIC;
--> statement-breakpoint
GRANT EXECUTE ON FUNCTION weave_pending_webhook_deliveries(timestamptz, integer) TO weave_app;
--> statement-breakpoint
GRANT EXECUTE ON FUNCTION weave_approval_token(text) TO weave_app;
--> statement-breakpoint
-- A new delivery wakes the workers, which enqueue its job. NOTIFY is delivered at commit and never
-- for a rolled-back insert; the payload names the delivery only ({"tenant","id"}).
CREATE OR REPLACE FUNCTION weave_notify_webhook_delivery() RETURNS trigger
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $$
BEGIN
  PERFORM pg_notify(
    'weave_webhook_deliveries', json_build_object('tenant', NEW.tenant_id, 'id', NEW.id)::text
  );
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER webhook_deliveries_notify
  AFTER INSERT ON webhook_deliveries
  FOR EACH ROW EXECUTE FUNCTION weave_notify_webhook_delivery();
