// Package engine runs orchestrations: one main session that analyses,
// plans, aggregates and verifies, and a pool of worker sessions, one per
// task, all through a SessionHost.
//
// Each run is owned by one goroutine (its runner). Every change of a run's
// state happens there, is committed to the store in one transaction with the
// event rows that describe it, and only then is emitted through the Emitter.
// Host notices mark sessions as changed; the runner then reads only what is
// new. Polling at the template's pollInterval is the fallback.
//
// A worker's session id is stored before the session is started, so after
// a crash Restore finds the session by that id and follows it again instead
// of starting a second one.
//
// Progress (tool counts, current action, token totals) is written and sent
// in coalesced batches at most every ProgressInterval (100 ms by default),
// as one worker:progress event per run (and orchestrator:progress for the
// main session's current action), without an event row: the worker and run
// rows hold it. Status changes each have their event row.
//
// # Seed workflows
//
// A template switches on the workflows of seeds 001, 003 and 004, each in
// its own file:
//   - review.go: with phases.review.enabled a worker's completion waits in
//     awaiting_review for the main session's review prompt (reviewer
//     "orchestrator") or for Engine.Review (reviewer "user"); a rejection
//     goes back to the worker with the reason, at most maxRetries times.
//   - mail.go: with transport "mailbox" tasks are also assigned in
//     .claude-orchestrator's message files and completion reports are taken
//     from to-team-lead.json into the same review path.
//   - delegation.go: a needs_input completion waits for Engine.Answer; a
//     conflict completion is recorded and listed for aggregation.
//   - skills.go: skills matched per task go into the worker prompt
//     (Task.Skills keeps their ids); journal.go: the seed 004 journal.
//   - qa.go: a failed verification's issues become remediation tasks, up to
//     phases.verification.maxRemediationRounds rounds; a dependency
//     deadlock ends the run with an explanation.
//
// Models are chosen per task complexity from config.models.
package engine
