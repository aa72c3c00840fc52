CREATE TABLE "retention_policies" (
	"tenant_id" text PRIMARY KEY NOT NULL,
	"checkpoints" jsonb DEFAULT '"all"' NOT NULL,
	"run_days" integer,
	"updated_by" text NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "retention_policies_run_days_check" CHECK ("retention_policies"."run_days" is null or "retention_policies"."run_days" >= 1)
);
--> statement-breakpoint
ALTER TABLE "retention_policies" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
ALTER TABLE "runs" ADD COLUMN "retained_seq" integer;--> statement-breakpoint
ALTER TABLE "runs" ADD COLUMN "expires_at" timestamp (3) with time zone;--> statement-breakpoint
CREATE INDEX "runs_retention_pending" ON "runs" USING btree ("finished_at","id") WHERE status in ('completed', 'failed', 'cancelled') and retained_seq is distinct from checkpoint_seq;--> statement-breakpoint
CREATE INDEX "runs_expires_at" ON "runs" USING btree ("expires_at","id") WHERE expires_at is not null;--> statement-breakpoint
CREATE INDEX "runs_forked_from" ON "runs" USING btree ("forked_from") WHERE forked_from is not null;--> statement-breakpoint
CREATE INDEX "runs_base_run_id" ON "runs" USING btree ("base_run_id") WHERE base_run_id is not null;--> statement-breakpoint
CREATE POLICY "tenant_isolation" ON "retention_policies" AS PERMISSIVE FOR ALL TO "weave_app" USING (tenant_id = current_setting('weave.tenant', true)) WITH CHECK (tenant_id = current_setting('weave.tenant', true));