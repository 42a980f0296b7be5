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
// In this package (structure_test.go holds its size):
//   - runner.go: the loop, step, sync, apply; status.go: runPos, the
//     run's status and its guards. create.go: Check, Create. phases.go:
//     the main session's phase machine (begin, ask, read, fail);
//     outcome.go: an answer taken, through to the run's end.
//   - workers.go, turns.go: a worker's life on the runner: scheduling,
//     spawn and onStarted, reading its turns (progress, report, permission,
//     limit, re-prompt, keyword fallback), failures, retries, timeouts,
//     progress flushes. worker.go, workerState: one worker's state and its
//     transitions, each returning its change; archiver.go ends workers'
//     sessions. taskplan.go, taskPlan: the tasks and their workers:
//     readiness, busy count, requeue, failure and the dependants it skips,
//     cancel, retry, deadlock, the totals of the run row.
//   - review.go, reviewer: the review gate of seed 001, the QA loop of seed
//     004 (remediation rounds) and the seeds' rules on a report (seed 003
//     conflicts, seed 004 partial outcomes); it owns the task under review
//     and the rounds run, and refuses a review of another task.
//   - limits.go: how the run applies backend/limits: a limit hit (a wait,
//     not a failure), limitStep and budgetStep (decisions the step
//     applies), the continue messages, RaiseBudget and ResumeAfterLimit.
//   - isolation.go: how the run applies backend/isolation: a worker's
//     worktree, the merges (runner.mergeWork), conflicts for a merge task
//     or the user. branch.go: a finished run's branch (Apply, Discard, some
//     tasks, push, pull request, diff, patch, a changed file): the
//     isolation state does the git work, onBranch stores it.
//   - checks.go: rounds of backend/checkrounds on the run's goroutine;
//     outputs.go: backend/outputs; link.go: backend/reconnect; runhost.go:
//     MoveRun (backend/runhost); driver.go: the run's lock (backend/owner).
//   - workflows.go: the seed workflows' interface. commands.go: the
//     Engine's commands, each run in the run's goroutine; answers.go: a
//     question answered; restore.go: Restore, RestoreRun, runner.reattach.
//   - report.go: the final report's engine side: what the report counts of
//     the run's events (history), LoadSnapshot, LoadReport, FinalReport and
//     ExportJSON (the Markdown export is the service's).
//   - events.go: events; graph.go, overrides.go: tasklist's and template's
//     names; ids.go: session ids; text.go: clipping.
//
// Beside it, each with its own tests and importing nothing of the engine:
//   - backend/runstatus: run and worker statuses and their transitions.
//   - backend/mainsession: the main session's state (where its transcript
//     is read, what was asked, when) and a lost main session, replaced by
//     a new one that reads the run so far.
//   - backend/checkrounds: the run's rounds of the project's checks
//     (backend/checks runs one): their state, the rows and verdicts of a
//     round, what the verification prompt, the QA loop and the final
//     report say of them, and their view.
//   - backend/outputs: a task's declared outputs and the judgment of what
//     it changed against them and its scope (backend/scope).
//   - backend/reconnect: a run's wait for its lost host and what it says.
//   - backend/runhost: the host a run remembers, the refusal on another
//     kind, what a move keeps and starts again.
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
//     branch baton/<run>, merges in dependency order, conflicts, cleanup,
//     and what is done with a finished run's branch and its view.
//   - backend/workflows: the seed workflows behind Workflows: the file
//     mailbox of seed 001 (config.transport "mailbox"), skills and the
//     journal of seed 004. Their file writes run in order on a writer
//     goroutine owned by the run.
//   - backend/prompts: every prompt a run sends (phase prompts, a worker's
//     prompt with the workflows' sections and the last rejection, review,
//     re-prompts, answers, the run so far).
//   - backend/report: the final report, the outcome (completed only when
//     nothing is left open) and the Markdown export.
//   - backend/tasklist: the checks before a plan is confirmed, the user's
//     modifications, parallel groups, the order of starts, the planner's
//     and QA's tasks as stored. backend/protocol says what an answer says
//     in sentences; backend/template applies a run's overrides.
//   - backend/hostguard: every host call bounded and cut when the host's
//     link goes down (session.ErrHostLost).
//
// Models are chosen per task complexity from config.models.
package engine
