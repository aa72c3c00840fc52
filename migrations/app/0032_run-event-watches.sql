CREATE TABLE "run_event_watches" (
	"tenant_id" text NOT NULL,
	"run_id" uuid NOT NULL,
	"watcher" uuid NOT NULL,
	"expires_at" timestamp (3) with time zone NOT NULL,
	CONSTRAINT "run_event_watches_run_id_watcher_pk" PRIMARY KEY("run_id","watcher")
);
--> statement-breakpoint
ALTER TABLE "run_event_watches" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
ALTER TABLE "run_event_watches" ADD CONSTRAINT "run_event_watches_run_id_runs_id_fk" FOREIGN KEY ("run_id") REFERENCES "public"."runs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE POLICY "tenant_isolation" ON "run_event_watches" AS PERMISSIVE FOR ALL TO "weave_app" USING (tenant_id = current_setting('weave.tenant', true)) WITH CHECK (tenant_id = current_setting('weave.tenant', true));--> statement-breakpoint
-- The API's event streams register, renew and remove their own watches (run-event-watches.ts).
GRANT SELECT, INSERT, UPDATE, DELETE ON run_event_watches TO weave_app;
--> statement-breakpoint
-- Live run events, announced only while a stream watches the run: a NOTIFY takes the cluster-wide
-- notify lock through its transaction's commit, and every step's commit of every run paid for it
-- (and woke every API process) although most runs are never streamed. The payload is the run id
-- only; listeners read the events through tenant-scoped queries. NOTIFY is delivered at commit, in
-- commit order, and never for a rolled-back insert.
--
-- No wake-up a stream needs is lost: a stream registers its watch in a transaction that first
-- locks the run row FOR SHARE, and reads the run's events only after that commits. Every
-- transaction that appends an event has locked the run row for update before (weave_append_run_event
-- and the step writers update the run first), so it either committed before the registration got
-- the lock (the stream's first read sees its events) or got the lock only after the registration
-- committed; this function then runs later in that transaction, and under READ COMMITTED its query
-- takes a fresh snapshot, which holds the watch (run-event-watches.int.test.ts).
CREATE OR REPLACE FUNCTION weave_notify_run_event() RETURNS trigger
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $$
BEGIN
  IF EXISTS (
    SELECT 1 FROM public.run_event_watches w
    WHERE w.run_id = NEW.run_id AND w.expires_at > now()
  ) THEN
    PERFORM pg_notify('weave_run_events', NEW.run_id::text);
  END IF;
  RETURN NULL;
END
$$;
--> statement-breakpoint
-- The retention pass's cross-tenant sweep of watches whose stream ended without removing them (a
-- process that died): they announce nothing once expired, and this keeps them from piling up.
CREATE OR REPLACE FUNCTION weave_delete_expired_run_event_watches(p_now timestamptz)
RETURNS integer
LANGUAGE sql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
  WITH deleted AS (
    DELETE FROM public.run_event_watches w WHERE w.expires_at <= p_now RETURNING 1
  )
  SELECT count(*)::integer FROM deleted
$$;
--> statement-breakpoint
REVOKE ALL ON FUNCTION weave_delete_expired_run_event_watches(timestamptz) FROM PUBLIC;
--> statement-breakpoint
GRANT EXECUTE ON FUNCTION weave_delete_expired_run_event_watches(timestamptz) TO weave_app;
