-- A run's row rules checked when a write sets the columns they read, not on every write.
--
-- runs_status_check and runs_concurrency_check were CHECK constraints, which Postgres evaluates
-- on every insert and update of the table, whatever columns it sets, and for each statement reads
-- again from their stored form and plans: a run's start, claim and five step writes paid that
-- seven times, 10% of the instructions Postgres spent in a run's functions (bench/e2e/README.md,
-- fifteenth round). The columns they read change only when a run is written whole or its status
-- changes. The same rules are now one BEFORE trigger, which Postgres fires on every insert and on
-- an update only when it sets one of those columns; a step's write sets none of them. It refuses a
-- row as the constraints did (SQLSTATE 23514, the constraint's name) and also does what
-- weave_mark_retention_due's two triggers did, in the same call.
ALTER TABLE "runs" DROP CONSTRAINT "runs_status_check";--> statement-breakpoint
ALTER TABLE "runs" DROP CONSTRAINT "runs_concurrency_check";--> statement-breakpoint
DROP TRIGGER runs_mark_retention_due ON runs;
--> statement-breakpoint
DROP TRIGGER runs_mark_retention_due_at_insert ON runs;
--> statement-breakpoint
DROP FUNCTION weave_mark_retention_due();
--> statement-breakpoint
-- A rule fails, as a CHECK constraint does, only when it is false (not when it is null). A run
-- whose status becomes terminal is due for retention unless retention already applied its policy
-- at its current checkpoint; one that leaves a terminal status (a retry) is not due until it ends
-- again; one written finished at once (an import, a copy) is due as well. Retention clears the
-- flag when it applies the policy (retention-prune.ts).
CREATE FUNCTION weave_run_row_rules() RETURNS trigger
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $$
BEGIN
  IF (NEW.status IN ('queued', 'running', 'waiting', 'completed', 'failed', 'cancelled')) IS FALSE
  THEN
    RAISE EXCEPTION 'new row for relation "runs" violates check constraint "runs_status_check"'
      USING ERRCODE = 'check_violation', CONSTRAINT = 'runs_status_check', TABLE = 'runs',
        SCHEMA = 'public';
  END IF;
  IF ((NEW.concurrency_key IS NULL) = (NEW.concurrency_limit IS NULL)
      AND (NEW.concurrency_key IS NULL) = (NEW.concurrency_seq IS NULL)
      AND (NEW.concurrency_limit IS NULL OR NEW.concurrency_limit >= 1)
      AND (NEW.concurrency_key IS NULL OR NEW.thread_id IS NULL)) IS FALSE
  THEN
    RAISE EXCEPTION 'new row for relation "runs" violates check constraint "runs_concurrency_check"'
      USING ERRCODE = 'check_violation', CONSTRAINT = 'runs_concurrency_check', TABLE = 'runs',
        SCHEMA = 'public';
  END IF;
  IF TG_OP = 'INSERT' OR OLD.status IS DISTINCT FROM NEW.status THEN
    NEW.retention_due := NEW.status IN ('completed', 'failed', 'cancelled')
      AND NEW.retained_seq IS DISTINCT FROM NEW.checkpoint_seq;
  END IF;
  RETURN NEW;
END
$$;
--> statement-breakpoint
CREATE TRIGGER runs_row_rules
  BEFORE INSERT OR UPDATE OF status, concurrency_key, concurrency_limit, concurrency_seq, thread_id
  ON runs FOR EACH ROW EXECUTE FUNCTION weave_run_row_rules();
