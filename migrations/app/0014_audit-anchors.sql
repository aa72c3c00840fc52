CREATE TABLE "audit_anchors" (
	"id" uuid PRIMARY KEY NOT NULL,
	"tenant_id" text NOT NULL,
	"seq" bigint NOT NULL,
	"hash" text NOT NULL,
	"at" timestamp (3) with time zone NOT NULL,
	"key_id" text NOT NULL,
	"signature" text NOT NULL,
	"created_by" text NOT NULL,
	"published_at" timestamp (3) with time zone
);
--> statement-breakpoint
ALTER TABLE "audit_anchors" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE INDEX "audit_anchors_tenant_seq" ON "audit_anchors" USING btree ("tenant_id","seq" DESC NULLS LAST,"at" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "audit_anchors_tenant_at" ON "audit_anchors" USING btree ("tenant_id","at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "audit_anchors_unpublished" ON "audit_anchors" USING btree ("at") WHERE published_at is null;--> statement-breakpoint
CREATE POLICY "tenant_isolation" ON "audit_anchors" AS PERMISSIVE FOR ALL TO "weave_app" USING (tenant_id = current_setting('weave.tenant', true)) WITH CHECK (tenant_id = current_setting('weave.tenant', true));