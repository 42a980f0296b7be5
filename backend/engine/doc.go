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
// The runner (runner.go) owns the run row, its status (runner.move and
// runner.unpause are the guards) and the loop: commands, notices, started
// sessions, workflow reports, poll and progress ticks, and the step that
// asks each concern in turn. A concern keeps its own state and says what
// should change: a change (ledger.go) holds the rows it adds, the workers
// it changed, the events, the run's new message, what the workflows are
// told, the final report of a change that ends the run, and the next step
// of a decision (change.then, decided once the first is stored).
// runner.apply is the one place that applies changes: it writes the
// working state into the rows (runner.sync; a state that cannot be written
// breaks the ledger) and hands each change to the ledger, which stores it
// with its event rows and only then emits the events. A commit that fails
// breaks the ledger: later commits are refused and the loop stops the run
// as interrupted (ledger.interrupt), dropping the working state that ran
// ahead, so Restore takes the run up from the store. Run creation
// (ledger.create) and Apply and Discard of a run's branch go through a
// ledger too.
//
// In this package:
//   - phases.go: the phase machine of the main session: begin, ask and ask
//     again, check its answers, move through analysis, planning,
//     confirmation, worker execution, aggregation and verification, to the
//     outcome the final report reads, or fail.
//   - main.go, mainSession: the main session's state (where its transcript
//     is read, what was asked, when) and a lost main session, replaced by a
//     new one that reads the run so far.
//   - workers.go, turns.go: a worker's life on the runner: scheduling,
//     spawn and onStarted, reading its turns (progress, report, permission,
//     limit, re-prompt, keyword fallback), failures, retries, timeouts,
//     progress flushes. worker.go, workerState: one worker's state and its
//     transitions, each returning its change; archiver ends workers'
//     sessions. taskplan.go, taskPlan: the tasks and their workers:
//     readiness, busy count, requeue, failure and the dependants it skips,
//     cancel, retry, deadlock, the totals of the run row.
//   - review.go, reviewer: the review gate of seed 001, the QA loop of seed
//     004 (remediation rounds) and the seeds' rules on a report (seed 003
//     conflicts, seed 004 partial outcomes); it owns the task under review
//     and the rounds run.
//   - limits.go: how the run applies backend/limits: a limit hit (a wait,
//     not a failure), the end of the wait, the continue messages, the
//     budget's warning and pause, RaiseBudget and ResumeAfterLimit.
//   - isolation.go: how the run applies backend/isolation: a worker's
//     worktree, the merges (runner.mergeWork), conflicts for a merge task or
//     the user, the views of a run's branch, Apply and Discard.
//   - link.go, link: a run's wait for a lost host (reconnecting, back in
//     time, or interrupted after Options.ReconnectFor).
//   - workflows.go, Workflows: the interface the seed workflows implement.
//   - commands.go: the Engine's commands, each run in the run's goroutine;
//     restore.go: Restore, RestoreRun and a held run's Resume, and
//     runner.reattach.
//   - report.go: the final report's engine side: what the report counts of
//     the run's events (history), LoadSnapshot, LoadReport and the exports.
//   - status.go: run and worker statuses and their legal transitions;
//     events.go: event names and payloads; graph.go: the user's
//     modifications of a proposed task list; overrides.go: a run's
//     overrides of its template; ids.go: session ids.
//
// Beside it, each with its own tests and importing nothing of the engine:
//   - backend/transcript: following the sessions (the dirty set fed by
//     notices, prefetched reads, a read-later timer) and what their new
//     entries say (text, tools, files, usage and cost, limits), with the
//     cursor stored per session.
//   - backend/limits: limits read from a session's entries, the run's
//     waits, the worker count halved at a limit and raised after each
//     success, and the budget (warning at 80 %, pause at the cap).
//   - backend/isolation: worktree isolation (template config.isolation
//     "worktree") as a workspace that does the git work (backend/worktree)
//     and says what happened: each worker in its own worktree from the run
//     branch baton/<run>, merges in dependency order, conflicts, cleanup.
//   - backend/workflows: the seed workflows behind Workflows: the file
//     mailbox of seed 001 (config.transport "mailbox"), skills and the
//     journal of seed 004. Their file writes run in order on a writer
//     goroutine owned by the run.
//   - backend/prompts: every prompt a run sends (phase prompts, a worker's
//     prompt with the workflows' sections and the last rejection, review,
//     re-prompts, answers, the run so far).
//   - backend/report: the final report, the outcome (completed only when
//     nothing is left open) and the Markdown export.
//   - backend/tasklist: the checks before a plan is confirmed, parallel
//     groups, the order of starts, the planner's and QA's tasks as stored.
//   - backend/hostguard: every host call bounded and cut when the host's
//     link goes down (session.ErrHostLost).
//
// Models are chosen per task complexity from config.models.
package engine
