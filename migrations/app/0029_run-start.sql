-- A run's start in one statement: see weave_start_run.
-- Refusals of weave_start_run, each its own SQLSTATE: WV010 no such graph, WV011 the graph is
-- archived, WV012 the version the caller validated the input against is no longer the one asked
-- for (another version became the latest, or the graph was deleted and registered again with
-- another spec under that number), WV013 the idempotency key names a run started with another
-- request body (the run's id is the error's DETAIL).
--
-- The run an idempotency key names, locked, when a start with that key replays it; a row of
-- nulls when the key is free (never used, or released here because it is older than the TTL).
-- Raises WV013 when the key was used with another request body.
CREATE OR REPLACE FUNCTION weave_start_run_replay(
  p_tenant text, p_key text, p_request_hash text, p_ttl_ms bigint
) RETURNS runs LANGUAGE plpgsql AS $$
DECLARE
  v_existing runs;
BEGIN
  SELECT * INTO v_existing FROM runs r
  WHERE r.tenant_id = p_tenant AND r.idempotency_key = p_key FOR NO KEY UPDATE;
  IF NOT FOUND THEN
    RETURN v_existing;
  END IF;
  IF clock_timestamp() - v_existing.created_at >= p_ttl_ms * interval '1 millisecond' THEN
    UPDATE runs SET idempotency_key = NULL WHERE tenant_id = p_tenant AND id = v_existing.id;
    RETURN NULL;
  END IF;
  IF v_existing.request_hash IS DISTINCT FROM p_request_hash THEN
    RAISE EXCEPTION 'idempotency key already used with another request'
      USING ERRCODE = 'WV013', DETAIL = v_existing.id::text;
  END IF;
  RETURN v_existing;
END
$$;
--> statement-breakpoint
-- Starts a run in one statement (one round trip, its own transaction), doing what the API's
-- transaction of a start did: the graph's checks, the run (or the one its idempotency key
-- already names, `created` false), its place in its concurrency key's line, its run.queued event
-- and its pending run.started audit event, which the deferred trigger of audit_pending chains at
-- this statement's commit. The caller validated `p_input` against version `p_version` whose
-- digest it read as `p_digest` (`p_latest`: the request named no version, so it must still be
-- the latest); a version changed since raises WV012 and writes nothing.
--
-- The audit event's hashed body comes from the caller with markers where the chain's seq and
-- previous hash go (as weave_append_audit takes it) and, for a run of a concurrency key, where
-- `held` goes: only this function knows whether the run waits in line. Runs as the caller, with
-- `weave.tenant` set for its own transaction, so row-level security binds every statement.
CREATE OR REPLACE FUNCTION weave_start_run(
  p_tenant text, p_run uuid, p_graph text, p_version integer, p_digest text, p_latest boolean,
  p_input jsonb, p_created_by text, p_idempotency_key text, p_request_hash text,
  p_idempotency_ttl_ms bigint, p_concurrency_key text, p_concurrency_limit integer,
  p_audit_id uuid, p_audit_at timestamptz, p_request_id text, p_ip text, p_audit_body text,
  p_seq_marker text, p_prev_marker text, p_held_marker text
) RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE
  v_archived_at timestamptz;
  v_digest text;
  v_existing runs;
  v_run runs;
  v_seq integer;
  v_held boolean := false;
  v_details jsonb;
  v_position integer;
BEGIN
  PERFORM set_config('weave.tenant', p_tenant, true);
  SELECT g.archived_at INTO v_archived_at FROM graphs g
  WHERE g.tenant_id = p_tenant AND g.name = p_graph;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'graph % does not exist', p_graph USING ERRCODE = 'WV010';
  END IF;
  IF v_archived_at IS NOT NULL THEN
    RAISE EXCEPTION 'graph % is archived', p_graph USING ERRCODE = 'WV011';
  END IF;
  SELECT v.digest INTO v_digest FROM graph_versions v
  WHERE v.tenant_id = p_tenant AND v.graph_name = p_graph AND v.version = p_version;
  IF v_digest IS DISTINCT FROM p_digest OR (p_latest AND EXISTS (
    SELECT 1 FROM graph_versions v
    WHERE v.tenant_id = p_tenant AND v.graph_name = p_graph AND v.version > p_version
  )) THEN
    RAISE EXCEPTION 'graph % version % changed', p_graph, p_version USING ERRCODE = 'WV012';
  END IF;
  -- A replay of a run of a concurrency key is answered before the key's lock is taken: the lock
  -- is never held while waiting for a run's row, which an end holds while it waits for the lock
  -- (concurrency-keys.ts).
  IF p_idempotency_key IS NOT NULL AND p_concurrency_key IS NOT NULL THEN
    v_existing := weave_start_run_replay(p_tenant, p_idempotency_key, p_request_hash,
      p_idempotency_ttl_ms);
    IF v_existing.id IS NOT NULL THEN
      RETURN jsonb_build_object('run', to_jsonb(v_existing), 'created', false);
    END IF;
  END IF;
  IF p_concurrency_key IS NOT NULL THEN
    SELECT place, waits INTO v_seq, v_held
    FROM weave_place_concurrency_run(p_tenant, p_concurrency_key, p_concurrency_limit);
  END IF;
  LOOP
    -- Its first event's seq is taken here: a second update of the row just inserted would
    -- also check its foreign keys again.
    INSERT INTO runs (id, tenant_id, graph_name, graph_version, input, created_by,
      idempotency_key, request_hash, held, concurrency_key, concurrency_limit, concurrency_seq,
      event_seq)
    VALUES (p_run, p_tenant, p_graph, p_version, p_input, p_created_by, p_idempotency_key,
      p_request_hash, v_held, p_concurrency_key, p_concurrency_limit, v_seq, 1)
    ON CONFLICT (tenant_id, idempotency_key) WHERE idempotency_key IS NOT NULL DO NOTHING
    RETURNING * INTO v_run;
    EXIT WHEN FOUND;
    -- The key names a run committed meanwhile: that run is the answer, unless an expiry
    -- released the key in between, and then the insert is tried again.
    v_existing := weave_start_run_replay(p_tenant, p_idempotency_key, p_request_hash,
      p_idempotency_ttl_ms);
    IF v_existing.id IS NOT NULL THEN
      RETURN jsonb_build_object('run', to_jsonb(v_existing), 'created', false);
    END IF;
  END LOOP;
  v_details := jsonb_build_object('graph', p_graph, 'version', p_version)
    || CASE WHEN p_concurrency_key IS NULL THEN '{}'::jsonb
            ELSE jsonb_build_object('concurrencyKey', p_concurrency_key, 'held', v_held) END;
  -- run.queued is event 1, as the row says (weave_insert_run_events, migration 0031).
  PERFORM weave_insert_run_events(p_tenant, p_run, 1,
    jsonb_build_array(jsonb_build_object('type', 'run.queued', 'data', v_details)));
  INSERT INTO audit_pending (id, tenant_id, at, actor, action, target_kind, target_id,
    request_id, ip, details, body, seq_marker, prev_marker)
  VALUES (p_audit_id, p_tenant, p_audit_at, p_created_by, 'run.started', 'run', p_run::text,
    p_request_id, p_ip, v_details,
    CASE WHEN p_held_marker IS NULL THEN p_audit_body
         ELSE replace(p_audit_body, '"' || p_held_marker || '"', v_held::text) END,
    p_seq_marker, p_prev_marker);
  IF v_held THEN
    SELECT count(*)::integer + 1 INTO v_position FROM runs r
    WHERE r.tenant_id = p_tenant AND r.concurrency_key = p_concurrency_key
      AND r.status = 'queued' AND r.held AND r.concurrency_seq < v_seq;
  END IF;
  RETURN jsonb_build_object('run', to_jsonb(v_run), 'created', true, 'position', v_position);
END
$$;
