-- A tenant's runs in one status, newest first, read in the index's order: runs_tenant_status
-- (tenant_id, status) found them, but each page then sorted all of the tenant's runs in that
-- status (query-plans.int.test.ts).
DROP INDEX "runs_tenant_status";--> statement-breakpoint
CREATE INDEX "runs_tenant_status_created" ON "runs" USING btree ("tenant_id","status","created_at" DESC NULLS LAST,"id" DESC NULLS LAST);