ALTER TABLE "runs" ADD COLUMN "concurrency_key" text;--> statement-breakpoint
ALTER TABLE "runs" ADD COLUMN "concurrency_limit" integer;--> statement-breakpoint
ALTER TABLE "runs" ADD COLUMN "concurrency_seq" integer;--> statement-breakpoint
CREATE UNIQUE INDEX "runs_concurrency_seq" ON "runs" USING btree ("tenant_id","concurrency_key","concurrency_seq") WHERE concurrency_key is not null;--> statement-breakpoint
CREATE INDEX "runs_concurrency_active" ON "runs" USING btree ("tenant_id","concurrency_key","concurrency_seq") WHERE concurrency_key is not null and status in ('queued', 'running', 'waiting');--> statement-breakpoint
ALTER TABLE "runs" ADD CONSTRAINT "runs_concurrency_check" CHECK ((concurrency_key is null) = (concurrency_limit is null)
        and (concurrency_key is null) = (concurrency_seq is null)
        and (concurrency_limit is null or concurrency_limit >= 1)
        and (concurrency_key is null or thread_id is null));--> statement-breakpoint
-- Admissions of one concurrency key (tenant and key) take turns on a transaction-scoped advisory
-- lock (the two-key form, apart from the audit chain's one-key locks). Whoever decides whether a
-- run of the key may start holds it: a start, and the end of a run of the key (the trigger
-- below). So a start waits for an end in progress and sees it, and an end sees every start that
-- committed before it (concurrency-keys.int.test.ts).
CREATE OR REPLACE FUNCTION weave_lock_concurrency_key(p_tenant text, p_key text) RETURNS void
LANGUAGE sql AS $$
  SELECT pg_advisory_xact_lock(hashtext('concurrency:' || p_tenant), hashtext(p_key))
$$;
--> statement-breakpoint
-- The slots of a key in use: its admitted runs that have not ended (a run waiting for a person
-- keeps its slot: it goes on where it stopped), and its failed runs with a retry asked for (they
-- run again without a new admission).
CREATE OR REPLACE FUNCTION weave_concurrency_slots_taken(p_tenant text, p_key text)
RETURNS integer LANGUAGE sql STABLE AS $$
  SELECT (SELECT count(*) FROM runs r
          WHERE r.tenant_id = p_tenant AND r.concurrency_key = p_key AND NOT r.held
            AND r.status IN ('queued', 'running', 'waiting'))::integer
       + (SELECT count(*) FROM runs r
          WHERE r.pending_resume IS NOT NULL AND r.tenant_id = p_tenant
            AND r.concurrency_key = p_key AND r.status = 'failed')::integer
$$;
--> statement-breakpoint
-- Where a new run of a key goes, under the key's lock (held until the caller's commit): its
-- place in the key's order, and whether it waits in line, because the key's slots are all taken
-- or runs are waiting already (the line is first come, first served).
CREATE OR REPLACE FUNCTION weave_place_concurrency_run(p_tenant text, p_key text, p_limit integer)
RETURNS TABLE (place integer, waits boolean) LANGUAGE plpgsql AS $$
BEGIN
  PERFORM weave_lock_concurrency_key(p_tenant, p_key);
  RETURN QUERY SELECT
    coalesce((SELECT max(r.concurrency_seq) FROM runs r
              WHERE r.tenant_id = p_tenant AND r.concurrency_key = p_key), 0) + 1,
    EXISTS (SELECT 1 FROM runs r
            WHERE r.tenant_id = p_tenant AND r.concurrency_key = p_key AND r.held
              AND r.status = 'queued')
      OR weave_concurrency_slots_taken(p_tenant, p_key) >= p_limit;
END
$$;
--> statement-breakpoint
-- Admits the runs at the head of a key's line while a slot is free for each (by the limit it was
-- started with), each with a run.admitted event; returns how many. The caller enqueues their
-- jobs after commit; the reconciler enqueues any a crash left without one (a queued run that is
-- not held).
CREATE OR REPLACE FUNCTION weave_admit_concurrency_runs(p_tenant text, p_key text)
RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
  v_head runs;
  v_admitted integer := 0;
BEGIN
  PERFORM weave_lock_concurrency_key(p_tenant, p_key);
  LOOP
    SELECT * INTO v_head FROM runs r
    WHERE r.tenant_id = p_tenant AND r.concurrency_key = p_key AND r.held AND r.status = 'queued'
    ORDER BY r.concurrency_seq LIMIT 1;
    EXIT WHEN NOT FOUND;
    EXIT WHEN weave_concurrency_slots_taken(p_tenant, p_key) >= v_head.concurrency_limit;
    UPDATE runs SET held = false, updated_at = now()
    WHERE tenant_id = p_tenant AND id = v_head.id;
    PERFORM weave_append_run_event(p_tenant, v_head.id, 'run.admitted',
      jsonb_build_object('concurrencyKey', p_key));
    v_admitted := v_admitted + 1;
  END LOOP;
  RETURN v_admitted;
END
$$;
--> statement-breakpoint
-- When a run of a key ends (or leaves the line cancelled), the line moves on in the same
-- transaction as the end: no end can leave a key's line stuck.
CREATE OR REPLACE FUNCTION weave_release_concurrency_slot() RETURNS trigger
LANGUAGE plpgsql SET search_path = public, pg_catalog, pg_temp AS $$
BEGIN
  PERFORM weave_admit_concurrency_runs(NEW.tenant_id, NEW.concurrency_key);
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER runs_release_concurrency_slot
  AFTER UPDATE OF status ON runs
  FOR EACH ROW
  WHEN (
    NEW.concurrency_key IS NOT NULL
    AND OLD.status IN ('queued', 'running', 'waiting')
    AND NEW.status IN ('completed', 'failed', 'cancelled')
  )
  EXECUTE FUNCTION weave_release_concurrency_slot();
