CREATE TABLE "schedule_firings" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"tenant_id" text NOT NULL,
	"schedule_id" uuid NOT NULL,
	"tick" text NOT NULL,
	"fired_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"scheduled_for" timestamp (3) with time zone,
	"run_id" uuid,
	"outcome" text NOT NULL,
	"reason" text,
	CONSTRAINT "schedule_firings_outcome_check" CHECK (outcome in ('started', 'skipped'))
);
--> statement-breakpoint
ALTER TABLE "schedule_firings" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "schedules" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"tenant_id" text NOT NULL,
	"graph_name" text NOT NULL,
	"thread_id" uuid,
	"input" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"cron" text,
	"timezone" text,
	"every_ms" integer,
	"overlap" text DEFAULT 'skip' NOT NULL,
	"catch_up" text DEFAULT 'once' NOT NULL,
	"paused" boolean DEFAULT false NOT NULL,
	"created_by" text NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"deleted_at" timestamp (3) with time zone,
	CONSTRAINT "schedules_timing_check" CHECK ((cron is null) <> (every_ms is null)),
	CONSTRAINT "schedules_every_ms_check" CHECK (every_ms is null or every_ms >= 1000),
	CONSTRAINT "schedules_overlap_check" CHECK (overlap in ('skip', 'enqueue', 'allow')),
	CONSTRAINT "schedules_catch_up_check" CHECK (catch_up in ('once', 'skip'))
);
--> statement-breakpoint
ALTER TABLE "schedules" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "threads" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"tenant_id" text NOT NULL,
	"key" text NOT NULL,
	"graph_name" text NOT NULL,
	"graph_version" integer,
	"metadata" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"multitask_strategy" text DEFAULT 'reject' NOT NULL,
	"next_run_seq" integer DEFAULT 1 NOT NULL,
	"created_by" text NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"archived_at" timestamp (3) with time zone,
	CONSTRAINT "threads_tenant_key" UNIQUE("tenant_id","key"),
	CONSTRAINT "threads_multitask_strategy_check" CHECK (multitask_strategy in ('reject', 'enqueue', 'interrupt', 'rollback'))
);
--> statement-breakpoint
ALTER TABLE "threads" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
ALTER TABLE "runs" ADD COLUMN "thread_id" uuid;--> statement-breakpoint
ALTER TABLE "runs" ADD COLUMN "thread_seq" integer;--> statement-breakpoint
ALTER TABLE "runs" ADD COLUMN "base_run_id" uuid;--> statement-breakpoint
ALTER TABLE "runs" ADD COLUMN "held" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "runs" ADD COLUMN "schedule_id" uuid;--> statement-breakpoint
ALTER TABLE "schedule_firings" ADD CONSTRAINT "schedule_firings_schedule_id_schedules_id_fk" FOREIGN KEY ("schedule_id") REFERENCES "public"."schedules"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "schedule_firings" ADD CONSTRAINT "schedule_firings_run_id_runs_id_fk" FOREIGN KEY ("run_id") REFERENCES "public"."runs"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "schedules" ADD CONSTRAINT "schedules_thread_id_threads_id_fk" FOREIGN KEY ("thread_id") REFERENCES "public"."threads"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "schedule_firings_schedule_tick" ON "schedule_firings" USING btree ("schedule_id","tick");--> statement-breakpoint
CREATE INDEX "schedule_firings_schedule_fired" ON "schedule_firings" USING btree ("schedule_id","fired_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "schedules_tenant_created" ON "schedules" USING btree ("tenant_id","created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "threads_tenant_created" ON "threads" USING btree ("tenant_id","created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
ALTER TABLE "runs" ADD CONSTRAINT "runs_base_run_id_runs_id_fk" FOREIGN KEY ("base_run_id") REFERENCES "public"."runs"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "runs_thread_seq" ON "runs" USING btree ("thread_id","thread_seq") WHERE thread_id is not null;--> statement-breakpoint
CREATE UNIQUE INDEX "runs_thread_one_active" ON "runs" USING btree ("thread_id") WHERE thread_id is not null and not held and status in ('queued', 'running', 'waiting');--> statement-breakpoint
CREATE INDEX "runs_schedule_active" ON "runs" USING btree ("schedule_id") WHERE schedule_id is not null and status in ('queued', 'running', 'waiting');--> statement-breakpoint
CREATE POLICY "tenant_isolation" ON "schedule_firings" AS PERMISSIVE FOR ALL TO "weave_app" USING (tenant_id = current_setting('weave.tenant', true)) WITH CHECK (tenant_id = current_setting('weave.tenant', true));--> statement-breakpoint
CREATE POLICY "tenant_isolation" ON "schedules" AS PERMISSIVE FOR ALL TO "weave_app" USING (tenant_id = current_setting('weave.tenant', true)) WITH CHECK (tenant_id = current_setting('weave.tenant', true));--> statement-breakpoint
CREATE POLICY "tenant_isolation" ON "threads" AS PERMISSIVE FOR ALL TO "weave_app" USING (tenant_id = current_setting('weave.tenant', true)) WITH CHECK (tenant_id = current_setting('weave.tenant', true));--> statement-breakpoint
-- Threads and schedules are archived or deleted softly; a firing is a record, never changed.
GRANT SELECT, INSERT, UPDATE ON threads, schedules TO weave_app;
--> statement-breakpoint
GRANT SELECT, INSERT ON schedule_firings TO weave_app;
--> statement-breakpoint
-- Declared here rather than in the drizzle schema, where runs.ts and threads.ts would import
-- each other.
ALTER TABLE "runs" ADD CONSTRAINT "runs_thread_id_threads_id_fk" FOREIGN KEY ("thread_id") REFERENCES "public"."threads"("id");
--> statement-breakpoint
ALTER TABLE "runs" ADD CONSTRAINT "runs_schedule_id_schedules_id_fk" FOREIGN KEY ("schedule_id") REFERENCES "public"."schedules"("id");
--> statement-breakpoint
-- A held run has no job on purpose: the reconciler must not hand it one.
CREATE OR REPLACE FUNCTION weave_runs_in_status(
  p_status text, p_updated_before timestamptz,
  p_after_updated timestamptz, p_after_id uuid, p_limit integer
) RETURNS TABLE (tenant_id text, id uuid, updated_at timestamptz, lease_job text)
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
  SELECT r.tenant_id, r.id, r.updated_at, r.lease_job
  FROM public.runs r
  WHERE r.status = p_status AND r.updated_at < p_updated_before AND NOT r.held
    AND (p_after_updated IS NULL OR (r.updated_at, r.id) > (p_after_updated, p_after_id))
  ORDER BY r.updated_at, r.id
  LIMIT least(greatest(p_limit, 1), 1000)
$$;
--> statement-breakpoint
-- When a thread's active run ends, the next held run of the thread (by thread_seq) becomes
-- runnable, in the same transaction as the end: no end can leave the thread stuck. A start
-- locks the thread's active runs before it decides to hold a run, so it waits for an end in
-- progress and sees it (threads.int.test.ts).
CREATE OR REPLACE FUNCTION weave_release_thread_run() RETURNS trigger
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $$
BEGIN
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
CREATE TRIGGER runs_release_thread_run
  AFTER UPDATE OF status ON runs
  FOR EACH ROW
  WHEN (
    NEW.thread_id IS NOT NULL AND NOT NEW.held
    AND OLD.status IN ('queued', 'running', 'waiting')
    AND NEW.status IN ('completed', 'failed', 'cancelled')
  )
  EXECUTE FUNCTION weave_release_thread_run();
