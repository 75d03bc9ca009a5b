// Package session is the durable agent loop: sessions of model steps and
// tool calls whose every step is in a write-ahead log (host/wal) before it
// has effects, so that a crash at any point resumes the run or ends it
// "interrupted", and a tool call is never sent twice.
//
// A session is addressed by (project_root, harness, session) and lives in
// <state_dir>/sessions/<id>/ (id: Key.ID). One actor per session holds the
// WAL's writer lease and runs every command on that session (admission,
// cancel, resume, each commit of the loop) on one goroutine, in order; at
// most one run goroutine drives the loop. A second writer, in this process
// or another axon, gets ErrLocked.
//
// # Records and the loop
//
// Admission resolves the idempotency key (a resend returns the existing
// run), the chain, the allowed tool blocks (their plugins are asked for
// their tools), max_turns (a positive integer) and the token/cost budget,
// before anything is written, and freezes all of it, with the tools' side
// effect classes and the providers' prices, into RunStarted: a refused
// admission writes nothing, not even a new session's directory. Then:
//
//	model step → ModelStepFinished (one record; the chain retries, falls back, degrades)
//	tool calls → ToolDispatchIntent for every call of the step, in ONE batch (one write, one fdatasync),
//	             and only then the calls, concurrently, each keyed run_id:call_id
//	results    → ToolResult for each, as it returns
//	repeat until RunFinished (completed, max_turns, budget, cancelled, interrupted, refused, failed)
//	          or RunPaused (no provider answered; RunResumed continues it)
//
// What a run does next is decided from its durable records alone
// (runState.next), so a fresh run and one resumed after a crash take the same
// path: a step without calls completes; calls never sent are sent (after
// the budget and max_turns checks); a call whose intent is durable and whose
// result is not is indeterminate: the run ends interrupted naming it in
// indeterminate_tool_calls and it is never sent again, except a tool of
// class none, which is simply sent again.
//
// # Decisions
//
//   - At-most-once dispatch, stricter than Temporal, Restate, DBOS or
//     LangGraph (which re-run an effect whose outcome is unknown): an intent
//     without a result is terminal. The idempotency key run_id:call_id still
//     reaches every tool, so a tool with its own dedup (tool-notes) makes a
//     human-initiated retry safe.
//   - A tool call that fails at the transport (its plugin died, it timed out)
//     gets a result with outcome_unknown set: the model is told, the run goes
//     on, the call is never re-sent. Only a crash or a stop leaves intents
//     without results.
//   - Call ids are made unique within a run (a model that names every call
//     call_0 gets call_0_s2_0 in step 2), so run_id:call_id is a key no other
//     call shares.
//   - One run at a time per session: a send while a run is in progress is
//     refused (ErrBusy), and while one is paused (ErrPaused) until it is
//     resumed or cancelled. Nothing is queued, so nothing is admitted that
//     is not written.
//   - RunPaused is for a model step the chain could not answer (exhausted,
//     or broken off after content): the conversation is whole, so resuming
//     only calls the model again. A refusal (content_filter) finishes the run.
//   - max_turns counts model steps; the calls of the step that reaches it
//     are not sent (they are listed as not_dispatched). A budget is checked
//     before each model step and before sending calls; a budget that cannot
//     be checked (usage not reported, a price unknown) counts as spent.
//   - Cancel (a caller action) and SIGTERM (Shutdown) stop a model call at
//     once and give tool calls in flight Options.Grace; calls still running
//     then are abandoned without a result and named indeterminate. The run
//     ends cancelled or interrupted respectively; runs that a crash left
//     open resume on the next open, runs sealed by SIGTERM do not.
//   - Subscribers read the control lane from the WAL (the newest records
//     from memory), never from a per-subscriber queue, so a slow or
//     reconnecting subscriber costs no memory and misses nothing; an event
//     becomes visible only after the actor folded its record. The display
//     lane (token deltas) is a bounded queue per subscriber that drops and
//     reports a gap; it is never stored.
//   - Projections (run index, usage facts) are derived from the state the
//     WAL folds into, kept in memory and snapshotted to projection.json
//     (not synced) at run boundaries and on close. Start rebuilds them from
//     the WALs; the snapshot is only read for a session another process
//     holds, and is marked stale when its watermark (lineage, seq) is behind.
//   - Recall results are stored in the WAL (the model must see them again on
//     resume) but withheld from the control lane.
//   - Records are JSON with a schema version: fsync, not encoding, bounds
//     the cost (durable-loop note, §4.2). A tool result keeps at most 1 MiB.
//   - A failed write or fdatasync of the log (a full disk) ends the run
//     interrupted with the error, written by the next open of the session:
//     any request to it, a retry loop (Options.SealRetry, doubling to a
//     minute) and Shutdown. The failing actor closes its WAL (releasing the
//     lease) and leaves the manager at once, so the session answers
//     ErrLogFailed (503), not ErrBusy, and opens afresh for the next
//     request. Health reports the session until the run is sealed; the
//     failure is logged once. It is kept in memory only: a process that
//     stops first leaves the run to crash recovery.
//
// The package must never send a tool call before its intent is durable,
// never send a call twice after a crash, never retry a failed WAL write or
// fsync on the same WAL (the actor stops; a new open recovers the log and
// seals the run), never hold a credential, and never show a recalled value
// to a subscriber.
package session
