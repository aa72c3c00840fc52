-- Several step writes in one statement, written as sets.
--
-- weave_save_steps (migration 0043) called weave_save_step once per element: for each write its
-- own update of the run, insert of checkpoints and insert of events, each a statement Postgres
-- starts, plans from its cache and ends. Starting and ending the small statements inside the
-- functions is about a quarter of a run's Postgres instructions (bench/e2e/README.md, eighteenth
-- round). The elements of one tenant are now written by one statement: one update of their runs,
-- one of the runs they complete, one insert of all their checkpoint rows and one of all their
-- events. Each element keeps what weave_save_step gives it: the same fence (running, under its
-- claim, a root checkpoint after the run's), the same columns, the same checkpoint rows, its
-- events numbered from its run's event_seq in its order, the completion's run.completed event.
--
-- The elements of a tenant go one by one through weave_save_step, as before, when the tenant has
-- a webhook (its deliveries take each element's own trace parent), when one of them uses an
-- approval or records a failure, or when two of them name the same run. When an element's fence
-- refuses it, the statement raises WV004 and writes nothing: the caller then sends each write
-- alone, and a refusal is its own write's (step-write-batch.ts).
CREATE OR REPLACE FUNCTION weave_save_steps(
  p_traces text[], p_tenants text[], p_runs uuid[], p_tokens uuid[], p_nss text[],
  p_latest text[], p_history text[], p_values text[], p_seqs integer[], p_is_root boolean[],
  p_failed boolean[], p_approvals uuid[], p_step_events jsonb[], p_events jsonb[],
  p_complete_last_steps text[], p_add_steps integer[]
) RETURNS boolean[] LANGUAGE plpgsql AS $$
DECLARE
  v_cancels boolean[] := array_fill(NULL::boolean, ARRAY[coalesce(array_length(p_runs, 1), 0)]);
  v_tenant text;
  v_members integer[];
  v_one_by_one boolean;
  v_written integer;
  v_ords integer[];
  v_flags boolean[];
  i integer;
BEGIN
  FOR v_tenant, v_members IN
    SELECT t.tenant, array_agg(t.ord::integer ORDER BY t.ord)
    FROM unnest(p_tenants) WITH ORDINALITY AS t(tenant, ord)
    GROUP BY t.tenant ORDER BY t.tenant
  LOOP
    PERFORM set_config('weave.tenant', v_tenant, true);
    v_one_by_one := EXISTS (
        SELECT 1 FROM webhooks w WHERE w.tenant_id = v_tenant AND w.deleted_at IS NULL)
      OR EXISTS (
        SELECT 1 FROM unnest(v_members) AS m(ord)
        WHERE p_approvals[m.ord] IS NOT NULL OR p_failed[m.ord])
      OR (SELECT count(DISTINCT p_runs[m.ord]) FROM unnest(v_members) AS m(ord))
        < cardinality(v_members);
    IF v_one_by_one THEN
      FOREACH i IN ARRAY v_members LOOP
        PERFORM set_config('weave.traceparent', coalesce(p_traces[i], ''), true);
        v_cancels[i] := weave_save_step(
          p_tenants[i], p_runs[i], p_tokens[i], p_nss[i],
          CASE WHEN p_history[i] IS NULL THEN ARRAY[p_latest[i]]
            ELSE ARRAY[p_latest[i], p_history[i]] END,
          p_values[i], p_latest[i], p_seqs[i], p_is_root[i], p_failed[i], p_approvals[i],
          CASE WHEN p_step_events[i] IS NULL THEN NULL ELSE 'step.completed' END,
          p_step_events[i], p_events[i], p_complete_last_steps[i], p_add_steps[i]);
      END LOOP;
      CONTINUE;
    END IF;
    -- The runs are found by their key and the fence is tested on each row found: the tenant is
    -- inside the fence's test so the planner looks each run up by its id rather than scanning the
    -- tenant's runs. Only the completing update names the status, as in weave_save_step: the
    -- run's triggers on a status change are considered only for it.
    WITH e AS MATERIALIZED (
      SELECT m.ord, p_runs[m.ord] AS run, p_tokens[m.ord] AS token, p_seqs[m.ord] AS seq,
        p_is_root[m.ord] AS is_root,
        p_complete_last_steps[m.ord] IS NOT NULL AND p_is_root[m.ord] AS completes,
        coalesce(p_events[m.ord], '[]'::jsonb) || CASE WHEN p_step_events[m.ord] IS NULL
          THEN '[]'::jsonb
          ELSE jsonb_build_array(jsonb_build_object(
            'type', 'step.completed', 'data', p_step_events[m.ord])) END AS events
      FROM unnest(v_members) AS m(ord)
    ), stepped AS (
      UPDATE runs r SET
        updated_at = CASE WHEN r.updated_at < now() - interval '1 second' THEN now()
          ELSE r.updated_at END,
        checkpoint_seq = CASE WHEN e.is_root THEN e.seq ELSE r.checkpoint_seq END,
        pending_resume = CASE WHEN e.is_root THEN NULL ELSE r.pending_resume END,
        event_seq = r.event_seq + jsonb_array_length(e.events)
      FROM e
      WHERE NOT e.completes AND r.id = e.run
        AND (r.tenant_id = v_tenant AND r.status = 'running'
          AND r.lease_token IS NOT DISTINCT FROM e.token
          AND (NOT e.is_root OR e.seq > r.checkpoint_seq)) IS TRUE
      RETURNING e.ord, r.event_seq, r.cancel_requested, e.events
    ), completed AS (
      UPDATE runs r SET updated_at = now(), checkpoint_seq = e.seq, pending_resume = NULL,
        event_seq = r.event_seq + jsonb_array_length(e.events) + 1, status = 'completed',
        finished_at = now(), stop_reason = 'completed', last_step = p_complete_last_steps[e.ord],
        steps = r.steps + p_add_steps[e.ord], waiting_on = NULL, wake_at = NULL
      FROM e
      WHERE e.completes AND r.id = e.run
        AND (r.tenant_id = v_tenant AND r.status = 'running'
          AND r.lease_token IS NOT DISTINCT FROM e.token AND e.seq > r.checkpoint_seq) IS TRUE
      RETURNING e.ord, r.event_seq, r.cancel_requested,
        e.events || jsonb_build_array(jsonb_build_object('type', 'run.completed',
          'data', jsonb_build_object('steps', r.steps, 'lastStep', p_complete_last_steps[e.ord])))
    ), written (ord, event_seq, cancel_requested, events) AS (
      SELECT * FROM stepped UNION ALL SELECT * FROM completed
    ), checkpoints AS (
      INSERT INTO weave_kv (tenant_id, ns, key, value, attempt_seq)
      SELECT v_tenant, p_nss[w.ord], k.key, p_values[w.ord], NULL
      FROM written w
      CROSS JOIN LATERAL (VALUES (p_latest[w.ord]), (p_history[w.ord])) AS k(key)
      WHERE k.key IS NOT NULL
      ON CONFLICT (tenant_id, ns, key) DO UPDATE
        SET value = EXCLUDED.value, attempt_seq = EXCLUDED.attempt_seq, updated_at = now()
    ), events AS (
      INSERT INTO run_events (tenant_id, run_id, seq, type, data)
      SELECT v_tenant, p_runs[w.ord],
        w.event_seq - jsonb_array_length(w.events) + x.ord::integer,
        x.value->>'type', x.value->'data'
      FROM written w
      CROSS JOIN LATERAL jsonb_array_elements(w.events) WITH ORDINALITY AS x(value, ord)
      ORDER BY w.ord, x.ord
    )
    SELECT count(*)::integer, array_agg(w.ord), array_agg(w.cancel_requested)
    INTO v_written, v_ords, v_flags
    FROM written w;
    IF v_written < cardinality(v_members) THEN
      RAISE EXCEPTION 'a step write of this statement was refused; none of them was written'
        USING ERRCODE = 'WV004';
    END IF;
    FOR i IN 1 .. v_written LOOP
      v_cancels[v_ords[i]] := v_flags[i];
    END LOOP;
  END LOOP;
  RETURN v_cancels;
END
$$;
