-- Several step writes in one statement. A worker executing many runs at once sent one
-- weave_save_step statement per step: its own round trip, transaction, commit and WAL flush.
-- Writes that are due while another is in flight now go together (step-write-batch.ts): each
-- element is the same weave_save_step call as before, with its own trace parent set first, and
-- the elements commit together or not at all. Each element names a different run, so a batch
-- takes the locks of different rows; the caller writes the elements one by one when the batch
-- fails, so one element's refusal (a lost claim, say) is its own.
--
-- An element's checkpoint keys are its latest key and, when history is kept, its history key
-- (p_history null: none). Returns each element's cancel_requested, in the elements' order.
CREATE FUNCTION weave_save_steps(
  p_traces text[], p_tenants text[], p_runs uuid[], p_tokens uuid[], p_nss text[],
  p_latest text[], p_history text[], p_values text[], p_seqs integer[], p_is_root boolean[],
  p_failed boolean[], p_approvals uuid[], p_step_events jsonb[], p_events jsonb[],
  p_complete_last_steps text[], p_add_steps integer[]
) RETURNS boolean[] LANGUAGE plpgsql AS $$
DECLARE
  v_cancels boolean[] := '{}';
BEGIN
  FOR i IN 1 .. coalesce(array_length(p_runs, 1), 0) LOOP
    PERFORM set_config('weave.traceparent', coalesce(p_traces[i], ''), true);
    v_cancels := v_cancels || weave_save_step(
      p_tenants[i], p_runs[i], p_tokens[i], p_nss[i],
      CASE WHEN p_history[i] IS NULL THEN ARRAY[p_latest[i]]
        ELSE ARRAY[p_latest[i], p_history[i]] END,
      p_values[i], p_latest[i], p_seqs[i], p_is_root[i], p_failed[i], p_approvals[i],
      CASE WHEN p_step_events[i] IS NULL THEN NULL ELSE 'step.completed' END, p_step_events[i],
      p_events[i], p_complete_last_steps[i], p_add_steps[i]);
  END LOOP;
  RETURN v_cancels;
END
$$;
