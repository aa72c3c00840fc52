ALTER TABLE "approvals" DROP CONSTRAINT "approvals_run_step_seq";--> statement-breakpoint
ALTER TABLE "approvals" ADD COLUMN "call_id" text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE "approvals" ADD CONSTRAINT "approvals_run_step_seq_call" UNIQUE("run_id","step","seq","call_id");