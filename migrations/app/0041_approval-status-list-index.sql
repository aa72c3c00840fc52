-- A tenant's approvals in one status, newest first, read in the index's order: approvals_tenant_status
-- (tenant_id, status) found the pending ones an approver lists, but each page then sorted all of
-- them (query-plans.int.test.ts).
DROP INDEX "approvals_tenant_status";--> statement-breakpoint
CREATE INDEX "approvals_tenant_status_created" ON "approvals" USING btree ("tenant_id","status","created_at" DESC NULLS LAST,"id" DESC NULLS LAST);