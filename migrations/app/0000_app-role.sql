-- The role the API and workers run as (SET ROLE on every pooled connection). It owns no table and
-- does not bypass row-level security, so the tenant policies bind it. Roles are cluster-wide while
-- this migration runs once per database: creating it must tolerate another database (or a
-- concurrent migration) having created it already.
DO $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'weave_app') THEN
    BEGIN
      CREATE ROLE weave_app NOLOGIN NOSUPERUSER NOBYPASSRLS NOCREATEDB NOCREATEROLE;
    EXCEPTION WHEN duplicate_object OR unique_violation THEN
      NULL;
    END;
  END IF;
  -- A superuser may SET ROLE to any role; an owner that is not one needs the membership.
  IF NOT (SELECT rolsuper FROM pg_roles WHERE rolname = current_user) THEN
    EXECUTE format('GRANT weave_app TO %I', current_user);
  END IF;
END
$$;
--> statement-breakpoint
GRANT USAGE ON SCHEMA public TO weave_app;
