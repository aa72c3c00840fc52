CREATE TABLE "tenant_events" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"seq" bigint GENERATED ALWAYS AS IDENTITY (sequence name "tenant_events_seq_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"tenant_id" text NOT NULL,
	"subject_kind" text NOT NULL,
	"subject" text NOT NULL,
	"type" text NOT NULL,
	"data" jsonb NOT NULL,
	"actor" text NOT NULL,
	"at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "tenant_events_subject_kind_check" CHECK (subject_kind in ('thread', 'schedule'))
);
--> statement-breakpoint
ALTER TABLE "tenant_events" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
ALTER TABLE "webhook_deliveries" ALTER COLUMN "run_id" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "webhook_deliveries" ALTER COLUMN "event_seq" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "webhook_deliveries" ADD COLUMN "event_id" uuid;--> statement-breakpoint
CREATE INDEX "tenant_events_subject_seq" ON "tenant_events" USING btree ("tenant_id","subject_kind","subject","seq" DESC NULLS LAST);--> statement-breakpoint
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_event_id_tenant_events_id_fk" FOREIGN KEY ("event_id") REFERENCES "public"."tenant_events"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_webhook_tenant_event" UNIQUE("webhook_id","event_id");--> statement-breakpoint
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_event_check" CHECK ((run_id is not null and event_seq is not null and event_id is null) or (run_id is null and event_seq is null and event_id is not null));--> statement-breakpoint
CREATE POLICY "tenant_isolation" ON "tenant_events" AS PERMISSIVE FOR ALL TO "weave_app" USING (tenant_id = current_setting('weave.tenant', true)) WITH CHECK (tenant_id = current_setting('weave.tenant', true));--> statement-breakpoint
-- Events are appended, never changed.
GRANT SELECT, INSERT ON tenant_events TO weave_app;
