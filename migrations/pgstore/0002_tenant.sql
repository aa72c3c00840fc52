-- @weave/pgstore: tenant-bound stores. Each row carries its tenant; a store made with
-- { tenant } reads and writes only that tenant's rows through the functions below, which set the
-- tenant for row-level security (see the package README).
ALTER TABLE "weave_kv" ADD COLUMN IF NOT EXISTS tenant_id text COLLATE "C" NOT NULL DEFAULT '';
DO $pk$
DECLARE pk text;
BEGIN
  SELECT conname INTO pk FROM pg_constraint WHERE conrelid = 'weave_kv'::regclass AND contype = 'p';
  IF pk IS NULL OR NOT EXISTS (
    SELECT 1 FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = i.indkey[0]
    WHERE i.indrelid = 'weave_kv'::regclass AND i.indisprimary AND a.attname = 'tenant_id'
  ) THEN
    IF pk IS NOT NULL THEN EXECUTE format('ALTER TABLE %I DROP CONSTRAINT %I', 'weave_kv', pk); END IF;
    ALTER TABLE "weave_kv" ADD PRIMARY KEY (tenant_id, ns, key);
  END IF;
END
$pk$;
CREATE OR REPLACE FUNCTION "weave_kv_t_get"(p_setting text, p_tenant text, p_ns text, p_key text)
RETURNS text LANGUAGE plpgsql AS $fn$
BEGIN
  PERFORM set_config(p_setting, p_tenant, true);
  RETURN (SELECT value FROM "weave_kv" WHERE tenant_id = p_tenant AND ns = p_ns AND key = p_key);
END
$fn$;
CREATE OR REPLACE FUNCTION "weave_kv_t_put"(p_setting text, p_tenant text, p_ns text, p_key text, p_value text)
RETURNS void LANGUAGE plpgsql AS $fn$
BEGIN
  PERFORM set_config(p_setting, p_tenant, true);
  INSERT INTO "weave_kv" (tenant_id, ns, key, value) VALUES (p_tenant, p_ns, p_key, p_value)
  ON CONFLICT (tenant_id, ns, key) DO UPDATE SET value = EXCLUDED.value, updated_at = now();
END
$fn$;
CREATE OR REPLACE FUNCTION "weave_kv_t_put_many"(p_setting text, p_tenant text, p_ns text, p_keys text[], p_values text[])
RETURNS void LANGUAGE plpgsql AS $fn$
BEGIN
  PERFORM set_config(p_setting, p_tenant, true);
  INSERT INTO "weave_kv" (tenant_id, ns, key, value)
  SELECT p_tenant, p_ns, k, v FROM unnest(p_keys, p_values) AS e(k, v)
  ON CONFLICT (tenant_id, ns, key) DO UPDATE SET value = EXCLUDED.value, updated_at = now();
END
$fn$;
CREATE OR REPLACE FUNCTION "weave_kv_t_delete"(p_setting text, p_tenant text, p_ns text, p_key text)
RETURNS void LANGUAGE plpgsql AS $fn$
BEGIN
  PERFORM set_config(p_setting, p_tenant, true);
  DELETE FROM "weave_kv" WHERE tenant_id = p_tenant AND ns = p_ns AND key = p_key;
END
$fn$;
CREATE OR REPLACE FUNCTION "weave_kv_t_list"(p_setting text, p_tenant text, p_ns text, p_from text, p_to text)
RETURNS SETOF text LANGUAGE plpgsql AS $fn$
BEGIN
  PERFORM set_config(p_setting, p_tenant, true);
  RETURN QUERY SELECT key FROM "weave_kv"
  WHERE tenant_id = p_tenant AND ns = p_ns AND key >= p_from COLLATE "C"
    AND (p_to IS NULL OR key < p_to COLLATE "C")
  ORDER BY key COLLATE "C";
END
$fn$;
