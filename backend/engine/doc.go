// Package engine runs orchestrations: one main session that analyses,
// plans, aggregates and verifies, and a pool of worker sessions, one per
// task, all through a session.Host.
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
// # The runner sequences; each concern owns its state
//
// The runner (runner.go) owns the run row, its status (runPos) and the
// loop: commands, notices, started sessions, workflow reports, poll and
// progress ticks, and the step that asks each concern in turn. A concern
// keeps its own state and says what should change: a change (ledger.go)
// holds the rows it adds, the workers it changed, the events, the run's new
// message, what the workflows are told, the final report of a change that
// ends the run, and the next step of a decision (change.then). runner.apply
// is the one place that applies changes: it writes the working state into
// the rows (runner.sync) and hands each change to the run's ledger
// (backend/runledger), which stores it and only then emits its events. A
// ledger that broke halts the loop, which stops the run as interrupted;
// Restore takes it up from the store.
//
// In this package (structure_test.go holds its size):
//   - runner.go: the loop, step, sync, apply; status.go: runPos. create.go:
//     Check, Create. phases.go: the main session's phases; outcome.go: an
//     answer taken, through to the run's end.
//   - workers.go, turns.go: a worker's life on the runner (scheduling,
//     spawn, its turns, failures, retries, timeouts, progress); worker.go,
//     workerState: one worker's state and transitions, each returning its
//     change. taskplan.go, taskPlan: the tasks
//     and their workers (readiness, requeue, failure and the dependants it
//     skips, cancel, retry, deadlock, the run row's totals).
//   - review.go, reviewer: the review gate (seed 001), the QA loop (seed
//     004) and the seeds' rules on a report (conflicts, partial outcomes).
//   - limits.go: how the run applies backend/limits (a limit hit, limitStep,
//     budgetStep, RaiseBudget, ResumeAfterLimit). isolation.go, branch.go:
//     how it applies backend/isolation (worktrees, merges, conflicts; a
//     finished run's branch). permissions.go: backend/permgate (prompts
//     answered by rule, the user's answers, the permission log). warm.go:
//     backend/warmstart. checks.go: backend/checkrounds; outputs.go:
//     backend/outputs; link.go: backend/reconnect; runhost.go: MoveRun
//     (backend/runhost); driver.go: the run's lock (backend/owner).
//   - workflows.go: the seed workflows' interface. commands.go: the
//     Engine's commands, each run in the run's goroutine; answers.go: a
//     question answered; restore.go: Restore, RestoreRun, runner.reattach.
//   - report.go: the final report's engine side; LoadSnapshot (runstore).
//   - events.go: events; graph.go, overrides.go: tasklist's and template's
//     names; ids.go: session ids; text.go: clipping.
//
// Beside it, each with its own tests and importing nothing of the engine:
//   - backend/runledger: a run's ledger (changes stored with their event
//     rows, then emitted; the interruption; the lock); event payloads.
//   - backend/runstore: a stored run: its state beyond its row, snapshot,
//     final report built from its events, JSON export.
//   - backend/runstatus: run and worker statuses and their transitions.
//   - backend/mainsession: the main session's state and a lost main
//     session replaced by a new one that reads the run so far.
//   - backend/permgate: the permission gate: the user's, the template's
//     and the run's rules, what they decide, the calls the permission mode
//     decided, the rows of the permission log.
//   - backend/warmstart: sessions warmed ahead for the workers that start
//     next, and cooled when their task will not start with them.
//   - backend/archiver: ending the workers' sessions on the host.
//   - backend/checkrounds: the run's rounds of the project's checks
//     (backend/checks runs one), their verdicts and what is said of them.
//   - backend/outputs: a task's declared outputs and scope judged against
//     what it changed (backend/scope).
//   - backend/reconnect: a run's wait for its lost host. backend/runhost:
//     the host a run remembers and what a move keeps.
//   - backend/transcript: following the sessions (notices, prefetched
//     reads) and what their new entries say, with the cursor per session.
//   - backend/limits: limits read from a session's entries, the run's
//     waits, the worker count halved at a limit, and the budget.
//   - backend/isolation: worktree isolation (config.isolation "worktree"):
//     worktrees from the run branch baton/<run>, merges in dependency order,
//     conflicts, cleanup, and a finished run's branch.
//   - backend/workflows: the seed workflows (the mailbox of seed 001,
//     skills and the journal of seed 004), written in order by the run.
//   - backend/prompts: every prompt a run sends. backend/report: the final
//     report, its outcome, what it counts of the run's events, and the
//     Markdown export. backend/tasklist: the plan's checks and changes.
//     backend/protocol: what an answer says. backend/template applies
//     overrides. backend/hostguard: every host call bounded and cut when
//     the host's link goes down.
//
// Models are chosen per task complexity from config.models.
package engine
