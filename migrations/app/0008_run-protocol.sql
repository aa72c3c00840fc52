DROP INDEX "runs_status_updated";--> statement-breakpoint
ALTER TABLE "approval_tokens" ADD COLUMN "webhook_id" uuid;--> statement-breakpoint
ALTER TABLE "approval_tokens" ADD COLUMN "token_ciphertext" text;--> statement-breakpoint
ALTER TABLE "approval_decisions" ADD COLUMN "idempotency_key" text;--> statement-breakpoint
ALTER TABLE "approval_decisions" ADD COLUMN "request_hash" text;--> statement-breakpoint
ALTER TABLE "approvals" ADD COLUMN "root_seq" integer;--> statement-breakpoint
ALTER TABLE "approvals" ADD COLUMN "input_schema" jsonb;--> statement-breakpoint
ALTER TABLE "approvals" ADD COLUMN "consumed_seq" integer;--> statement-breakpoint
ALTER TABLE "graph_versions" ADD COLUMN "subgraph_versions" jsonb DEFAULT '{}'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "runs" ADD COLUMN "lease_token" uuid;--> statement-breakpoint
ALTER TABLE "runs" ADD COLUMN "checkpoint_seq" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "runs" ADD COLUMN "event_seq" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "runs" ADD COLUMN "wake_at" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "runs" ADD COLUMN "pending_resume" jsonb;--> statement-breakpoint
ALTER TABLE "webhooks" ADD COLUMN "previous_secret_ciphertext" text;--> statement-breakpoint
ALTER TABLE "webhooks" ADD COLUMN "previous_secret_expires_at" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "webhooks" ADD COLUMN "scopes" text[] DEFAULT '{}'::text[] NOT NULL;--> statement-breakpoint
ALTER TABLE "approval_tokens" ADD CONSTRAINT "approval_tokens_webhook_id_webhooks_id_fk" FOREIGN KEY ("webhook_id") REFERENCES "public"."webhooks"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "approvals_settled_unconsumed" ON "approvals" USING btree ("settled_at","id") WHERE status in ('approved', 'rejected', 'expired') and consumed_seq is null;--> statement-breakpoint
CREATE INDEX "runs_waiting_wake_at" ON "runs" USING btree ("wake_at","id") WHERE status = 'waiting' and wake_at is not null;--> statement-breakpoint
CREATE INDEX "runs_pending_resume" ON "runs" USING btree ("updated_at","id") WHERE pending_resume is not null;--> statement-breakpoint
CREATE INDEX "runs_status_updated" ON "runs" USING btree ("status","updated_at","id");--> statement-breakpoint
ALTER TABLE "approval_tokens" ADD CONSTRAINT "approval_tokens_approval_webhook_decision" UNIQUE("approval_id","webhook_id","decision");--> statement-breakpoint
-- Existing rows: event numbers continue after the events already written; an approval settled
-- before this migration whose run moved on was used by its step; wait timers get their due time.
UPDATE "runs" r SET "event_seq" = e.last
FROM (SELECT run_id, max(seq) AS last FROM "run_events" GROUP BY run_id) e
WHERE e.run_id = r.id;--> statement-breakpoint
UPDATE "approvals" SET "root_seq" = "seq";--> statement-breakpoint
UPDATE "approvals" a SET "consumed_seq" = a.seq
WHERE a.status <> 'pending' AND NOT EXISTS (
  SELECT 1 FROM "runs" r
  WHERE r.id = a.run_id AND r.status = 'waiting' AND r.waiting_on->>'approvalId' = a.id::text
);--> statement-breakpoint
UPDATE "runs" SET "wake_at" = ("waiting_on"->>'until')::timestamptz
WHERE "status" = 'waiting' AND "waiting_on"->>'kind' = 'wait';
