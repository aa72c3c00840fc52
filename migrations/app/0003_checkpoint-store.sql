-- The kernel's checkpoint store (@weave/pgstore), the DDL of migrations/pgstore/0001_weave_kv.sql.
-- Tenants are isolated by PgStore's namespace prefix (tenant:<id>:), which workers always set.
CREATE TABLE IF NOT EXISTS "weave_kv" (
  ns text COLLATE "C" NOT NULL,
  key text COLLATE "C" NOT NULL,
  value text NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (ns, key)
);
--> statement-breakpoint
GRANT SELECT, INSERT, UPDATE, DELETE ON "weave_kv" TO weave_app;
