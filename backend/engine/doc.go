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
// # Where things are
//
// The Engine (engine.go) holds the runs and sends each one its commands;
// what a run does is split between the runner and its collaborators, each
// owning its own state:
//
//   - runner.go, runner: the run's loop (commands, notices, started
//     sessions, mailbox reports, poll and progress ticks) and each step of
//     it. It owns the run row, its status (runner.move and runner.unpause
//     are the guards) and the main session's state, and hands every change
//     to the ledger (runner.commit).
//   - phases.go: the phase machine of the main session: begin, ask and
//     re-ask, check its answers, move through analysis, planning,
//     confirmation, worker execution, aggregation and verification,
//     complete or fail.
//   - workers.go: a worker's life on the runner: scheduling, spawn and
//     onStarted, checkWorker (progress, report, permission, re-prompt,
//     keyword fallback), retries, failures, timeouts, progress flushes;
//     archiver, which archives reported sessions in the background.
//   - commands.go: the runner's side of the Engine's commands (confirm,
//     pause, resume, cancel, per-worker commands, permissions) and reattach
//     after a restore.
//   - ledger.go, ledger: commits each change with its event rows and only
//     then emits the events. A commit that fails breaks the ledger: later
//     commits are refused and the loop stops the run, dropping the working
//     state that ran ahead, so Restore takes the run up from the store.
//   - follower.go, follower: follows the run's sessions: the dirty set fed
//     by host notices, reads (prefetched at once for several sessions, one
//     per messageReadGap for bursts of message notices, a read-later timer),
//     and transcriptCursor, where a session's transcript was read to, what
//     it said since the prompt and its usage.
//   - taskplan.go, taskPlan: the tasks and their workers: readiness, busy
//     count, dependants and skipping, deadlock, the totals of the run row;
//     workerState with its guard (move) and its stored book, whose
//     reviewGate holds the review state.
//   - prompt.go: every prompt the engine sends: phase prompts with their
//     values, a worker's prompt (template, workflow sections, last
//     rejection), the review prompt, re-prompts, answers to questions.
//   - hooks.go, hooks: the seed workflows as the loop sees them, called at
//     fixed points (planned, confirmed, assign, sections, awaitingReview,
//     decided, finished, completed, restored). Their file writes run in
//     order on a writer goroutine owned by the run, waited for before the
//     run counts as finished and when its goroutine ends. The loop waits
//     only where it needs an answer: a mailbox assignment's error and the
//     journal's archive at completion; a worker's prompt sections are
//     gathered on the goroutine that starts its session.
//   - limits.go: rate (429), overload (529) and usage limits read from a
//     session's error entries are waits, not failures: the run waits until
//     the reset (else retry-after, else a capped backoff with jitter), its
//     workers go on in their sessions, the worker count is halved at each
//     limit and raised after each success; budget.go: the run's budget
//     (warning at 80 %, pause at the cap, RaiseBudget); cost.go: a
//     session's cost from backend/pricing when its host reports only tokens.
//   - isolation.go: worktree isolation (template config.isolation
//     "worktree"): each worker in its own git worktree from the run branch
//     baton/<run>, merged back in dependency order after it completes, a
//     conflict resolved by a merge task or the user, cleanup when the run
//     ends, Apply and Discard; backend/worktree runs git. Its hooks: spawn
//     (workerCwd), step (isoMerge), schedule (isoReady), afterWorkers
//     (isoSettled), commit (isoFinish).
//   - status.go: run and worker statuses and their legal transitions;
//     graph.go: task list checks, parallel groups, modifications;
//     transcript.go: what a batch of transcript entries says (usage, tools,
//     files, actions); final_report.go, report.go: the final report.
//
// # Seed workflows
//
// A template switches on the workflows of seeds 001, 003 and 004:
//   - review.go: with phases.review.enabled a worker's completion waits in
//     awaiting_review for the main session's review prompt (reviewer
//     "orchestrator") or for Engine.Review (reviewer "user"); a rejection
//     goes back to the worker with the reason, at most maxRetries times.
//   - mail.go (mailHook): with transport "mailbox" tasks are also assigned
//     in .claude-orchestrator's message files and completion reports are
//     taken from to-team-lead.json into the same review path.
//   - delegation.go: a needs_input completion waits for Engine.Answer; a
//     conflict completion is recorded and listed for aggregation.
//   - skills.go (skillsHook): skills matched per task go into the worker
//     prompt (Task.Skills keeps their ids); journal.go (journalHook): the
//     seed 004 journal.
//   - qa.go: a failed verification's issues become remediation tasks, up to
//     phases.verification.maxRemediationRounds rounds; a dependency
//     deadlock ends the run with an explanation.
//
// Models are chosen per task complexity from config.models.
package engine
