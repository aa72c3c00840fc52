-- @weave/pgstore: the kernel's Store, one row per (namespace, key).
-- ns and key are COLLATE "C", so the primary-key index and ORDER BY key follow UTF-8 byte order
-- (Unicode code point order) whatever the database's default collation.
-- ns is "<code points in the store's prefix>:<prefix><namespace>", e.g. 0:checkpoint:greeter.
CREATE TABLE IF NOT EXISTS "weave_kv" (
  ns text COLLATE "C" NOT NULL,
  key text COLLATE "C" NOT NULL,
  value text NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (ns, key)
);
