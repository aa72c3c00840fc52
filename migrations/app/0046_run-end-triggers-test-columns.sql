-- The triggers that move a thread's or a concurrency key's line on when a run ends test, in their
-- WHEN condition, only what is cheap to read again: whether the run is in a thread or has a key.
--
-- Postgres reads a trigger's WHEN condition back from its stored form, plans and compiles it for
-- each statement that may fire the trigger: every update that names the status (a start's claim,
-- a resume, the completing step's write, an end). Both conditions also compared the old and the
-- new status against two lists, the larger part of each stored form, for the many runs that have
-- neither thread nor key (bench/e2e/README.md, fifteenth round). The status test moves into the
-- trigger functions, which a run of a thread or a key now calls on each change of its status and
-- which act only when the run ends, as before.
DROP TRIGGER runs_release_thread_run ON runs;
--> statement-breakpoint
DROP TRIGGER runs_release_concurrency_slot ON runs;
--> statement-breakpoint
-- When a thread's active run ends, the next held run of the thread (by thread_seq) becomes
-- runnable, in the same transaction as the end: no end can leave the thread stuck. A start
-- locks the thread's active runs before it decides to hold a run, so it waits for an end in
-- progress and sees it (threads.int.test.ts).
CREATE OR REPLACE FUNCTION weave_release_thread_run() RETURNS trigger
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $$
BEGIN
  IF NOT (OLD.status IN ('queued', 'running', 'waiting')
      AND NEW.status IN ('completed', 'failed', 'cancelled')) THEN
    RETURN NULL;
  END IF;
  UPDATE public.runs SET held = false, updated_at = now()
  WHERE id = (
      SELECT r.id FROM public.runs r
      WHERE r.thread_id = NEW.thread_id AND r.held AND r.status = 'queued'
      ORDER BY r.thread_seq LIMIT 1
    )
    AND NOT EXISTS (
      SELECT 1 FROM public.runs a
      WHERE a.thread_id = NEW.thread_id AND NOT a.held AND a.id <> NEW.id
        AND a.status IN ('queued', 'running', 'waiting')
    );
  RETURN NULL;
END
$$;
--> statement-breakpoint
-- When a run of a key ends (or leaves the line cancelled), the line moves on in the same
-- transaction as the end: no end can leave a key's line stuck.
CREATE OR REPLACE FUNCTION weave_release_concurrency_slot() RETURNS trigger
LANGUAGE plpgsql SET search_path = public, pg_catalog, pg_temp AS $$
BEGIN
  IF NOT (OLD.status IN ('queued', 'running', 'waiting')
      AND NEW.status IN ('completed', 'failed', 'cancelled')) THEN
    RETURN NULL;
  END IF;
  PERFORM weave_admit_concurrency_runs(NEW.tenant_id, NEW.concurrency_key);
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER runs_release_thread_run
  AFTER UPDATE OF status ON runs
  FOR EACH ROW WHEN (NEW.thread_id IS NOT NULL AND NOT NEW.held)
  EXECUTE FUNCTION weave_release_thread_run();
--> statement-breakpoint
CREATE TRIGGER runs_release_concurrency_slot
  AFTER UPDATE OF status ON runs
  FOR EACH ROW WHEN (NEW.concurrency_key IS NOT NULL)
  EXECUTE FUNCTION weave_release_concurrency_slot();
