CREATE TABLE "approval_decisions" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"tenant_id" text NOT NULL,
	"approval_id" uuid NOT NULL,
	"subject" text NOT NULL,
	"decision" text NOT NULL,
	"comment" text,
	"input" jsonb,
	"at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "approval_decisions_approval_subject" UNIQUE("approval_id","subject"),
	CONSTRAINT "approval_decisions_decision_check" CHECK (decision in ('approve', 'reject'))
);
--> statement-breakpoint
ALTER TABLE "approval_decisions" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "approvals" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"tenant_id" text NOT NULL,
	"run_id" uuid NOT NULL,
	"step" text NOT NULL,
	"seq" integer NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"title" text NOT NULL,
	"details" jsonb,
	"material_hash" text NOT NULL,
	"approvers" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"required" integer DEFAULT 1 NOT NULL,
	"separation_of_duties" boolean DEFAULT false NOT NULL,
	"save_as" text NOT NULL,
	"on_timeout" text DEFAULT 'expire' NOT NULL,
	"expires_at" timestamp (3) with time zone,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"settled_at" timestamp (3) with time zone,
	CONSTRAINT "approvals_run_step_seq" UNIQUE("run_id","step","seq"),
	CONSTRAINT "approvals_status_check" CHECK (status in ('pending', 'approved', 'rejected', 'expired', 'cancelled')),
	CONSTRAINT "approvals_on_timeout_check" CHECK (on_timeout in ('expire', 'fail')),
	CONSTRAINT "approvals_required_check" CHECK (required >= 1)
);
--> statement-breakpoint
ALTER TABLE "approvals" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "audit_events" (
	"id" uuid PRIMARY KEY NOT NULL,
	"tenant_id" text NOT NULL,
	"seq" bigint NOT NULL,
	"at" timestamp (3) with time zone NOT NULL,
	"actor" text NOT NULL,
	"action" text NOT NULL,
	"target_kind" text NOT NULL,
	"target_id" text NOT NULL,
	"request_id" text,
	"ip" text,
	"details" jsonb NOT NULL,
	"prev_hash" text NOT NULL,
	"hash" text NOT NULL,
	CONSTRAINT "audit_events_tenant_seq" UNIQUE("tenant_id","seq")
);
--> statement-breakpoint
ALTER TABLE "audit_events" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "graph_versions" (
	"tenant_id" text NOT NULL,
	"graph_name" text NOT NULL,
	"version" integer NOT NULL,
	"spec" jsonb NOT NULL,
	"digest" text NOT NULL,
	"description" text,
	"created_by" text NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "graph_versions_tenant_id_graph_name_version_pk" PRIMARY KEY("tenant_id","graph_name","version")
);
--> statement-breakpoint
ALTER TABLE "graph_versions" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "graphs" (
	"tenant_id" text NOT NULL,
	"name" text NOT NULL,
	"archived_at" timestamp (3) with time zone,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "graphs_tenant_id_name_pk" PRIMARY KEY("tenant_id","name")
);
--> statement-breakpoint
ALTER TABLE "graphs" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "run_events" (
	"tenant_id" text NOT NULL,
	"run_id" uuid NOT NULL,
	"seq" integer NOT NULL,
	"type" text NOT NULL,
	"data" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "run_events_run_id_seq_pk" PRIMARY KEY("run_id","seq")
);
--> statement-breakpoint
ALTER TABLE "run_events" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "runs" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"tenant_id" text NOT NULL,
	"graph_name" text NOT NULL,
	"graph_version" integer NOT NULL,
	"status" text DEFAULT 'queued' NOT NULL,
	"stop_reason" text,
	"last_step" text,
	"steps" integer DEFAULT 0 NOT NULL,
	"error" jsonb,
	"input" jsonb NOT NULL,
	"waiting_on" jsonb,
	"cancel_requested" boolean DEFAULT false NOT NULL,
	"created_by" text NOT NULL,
	"idempotency_key" text,
	"request_hash" text,
	"forked_from" uuid,
	"forked_seq" integer,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"finished_at" timestamp (3) with time zone,
	CONSTRAINT "runs_status_check" CHECK (status in ('queued', 'running', 'waiting', 'completed', 'failed', 'cancelled'))
);
--> statement-breakpoint
ALTER TABLE "runs" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "tenants" (
	"id" text PRIMARY KEY NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "tenants" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
ALTER TABLE "approval_decisions" ADD CONSTRAINT "approval_decisions_approval_id_approvals_id_fk" FOREIGN KEY ("approval_id") REFERENCES "public"."approvals"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "approvals" ADD CONSTRAINT "approvals_run_id_runs_id_fk" FOREIGN KEY ("run_id") REFERENCES "public"."runs"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "graph_versions" ADD CONSTRAINT "graph_versions_tenant_id_graph_name_graphs_tenant_id_name_fk" FOREIGN KEY ("tenant_id","graph_name") REFERENCES "public"."graphs"("tenant_id","name") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "graphs" ADD CONSTRAINT "graphs_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "run_events" ADD CONSTRAINT "run_events_run_id_runs_id_fk" FOREIGN KEY ("run_id") REFERENCES "public"."runs"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "runs" ADD CONSTRAINT "runs_forked_from_runs_id_fk" FOREIGN KEY ("forked_from") REFERENCES "public"."runs"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "runs" ADD CONSTRAINT "runs_tenant_id_graph_name_graph_version_graph_versions_tenant_id_graph_name_version_fk" FOREIGN KEY ("tenant_id","graph_name","graph_version") REFERENCES "public"."graph_versions"("tenant_id","graph_name","version") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "approvals_tenant_created" ON "approvals" USING btree ("tenant_id","created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "approvals_tenant_status" ON "approvals" USING btree ("tenant_id","status");--> statement-breakpoint
CREATE INDEX "approvals_pending_expiry" ON "approvals" USING btree ("expires_at") WHERE status = 'pending' and expires_at is not null;--> statement-breakpoint
CREATE INDEX "audit_events_tenant_target" ON "audit_events" USING btree ("tenant_id","target_id");--> statement-breakpoint
CREATE INDEX "audit_events_tenant_action" ON "audit_events" USING btree ("tenant_id","action");--> statement-breakpoint
CREATE UNIQUE INDEX "runs_tenant_idempotency_key" ON "runs" USING btree ("tenant_id","idempotency_key") WHERE idempotency_key is not null;--> statement-breakpoint
CREATE INDEX "runs_tenant_created" ON "runs" USING btree ("tenant_id","created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "runs_tenant_status" ON "runs" USING btree ("tenant_id","status");--> statement-breakpoint
CREATE INDEX "runs_tenant_graph_created" ON "runs" USING btree ("tenant_id","graph_name","created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "runs_status_updated" ON "runs" USING btree ("status","updated_at");--> statement-breakpoint
CREATE POLICY "tenant_isolation" ON "approval_decisions" AS PERMISSIVE FOR ALL TO "weave_app" USING (tenant_id = current_setting('weave.tenant', true)) WITH CHECK (tenant_id = current_setting('weave.tenant', true));--> statement-breakpoint
CREATE POLICY "tenant_isolation" ON "approvals" AS PERMISSIVE FOR ALL TO "weave_app" USING (tenant_id = current_setting('weave.tenant', true)) WITH CHECK (tenant_id = current_setting('weave.tenant', true));--> statement-breakpoint
CREATE POLICY "tenant_isolation" ON "audit_events" AS PERMISSIVE FOR ALL TO "weave_app" USING (tenant_id = current_setting('weave.tenant', true)) WITH CHECK (tenant_id = current_setting('weave.tenant', true));--> statement-breakpoint
CREATE POLICY "tenant_isolation" ON "graph_versions" AS PERMISSIVE FOR ALL TO "weave_app" USING (tenant_id = current_setting('weave.tenant', true)) WITH CHECK (tenant_id = current_setting('weave.tenant', true));--> statement-breakpoint
CREATE POLICY "tenant_isolation" ON "graphs" AS PERMISSIVE FOR ALL TO "weave_app" USING (tenant_id = current_setting('weave.tenant', true)) WITH CHECK (tenant_id = current_setting('weave.tenant', true));--> statement-breakpoint
CREATE POLICY "tenant_isolation" ON "run_events" AS PERMISSIVE FOR ALL TO "weave_app" USING (tenant_id = current_setting('weave.tenant', true)) WITH CHECK (tenant_id = current_setting('weave.tenant', true));--> statement-breakpoint
CREATE POLICY "tenant_isolation" ON "runs" AS PERMISSIVE FOR ALL TO "weave_app" USING (tenant_id = current_setting('weave.tenant', true)) WITH CHECK (tenant_id = current_setting('weave.tenant', true));--> statement-breakpoint
CREATE POLICY "tenant_isolation" ON "tenants" AS PERMISSIVE FOR ALL TO "weave_app" USING (id = current_setting('weave.tenant', true)) WITH CHECK (id = current_setting('weave.tenant', true));