package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"sync/atomic"
	"time"

	"github.com/baton-app/baton/backend/archiver"
	"github.com/baton-app/baton/backend/checkrounds"
	"github.com/baton-app/baton/backend/isolation"
	"github.com/baton-app/baton/backend/limits"
	"github.com/baton-app/baton/backend/mainsession"
	"github.com/baton-app/baton/backend/permgate"
	"github.com/baton-app/baton/backend/permrules"
	"github.com/baton-app/baton/backend/prompts"
	"github.com/baton-app/baton/backend/protocol"
	"github.com/baton-app/baton/backend/reconnect"
	"github.com/baton-app/baton/backend/runledger"
	"github.com/baton-app/baton/backend/runstatus"
	"github.com/baton-app/baton/backend/runstore"
	"github.com/baton-app/baton/backend/scope"
	"github.com/baton-app/baton/backend/session"
	"github.com/baton-app/baton/backend/store"
	"github.com/baton-app/baton/backend/template"
	"github.com/baton-app/baton/backend/transcript"
	"github.com/baton-app/baton/backend/warmstart"
	"github.com/baton-app/baton/backend/workflows"
)

type command struct {
	fn    func(context.Context, *runner) error
	reply chan error
}

// runState is the run's state beyond its row, stored in Run.State.
type runState = runstore.State

type startResult struct {
	taskID  string
	attempt int
	id      session.ID
	err     error
	// before is the snapshot of the task's scope taken before it started
	// (a shared run).
	before *scope.Snapshot
}

// runner owns one run: its loop, its status and its phase machine. It
// sequences; each concern keeps its own state and says what should change,
// and the runner applies that through the ledger (apply). See doc.go.
type runner struct {
	e   *Engine
	log *slog.Logger
	run store.Run
	// runPos is the run's status and the status it was held in.
	runPos
	tmpl   template.Template
	parser *protocol.Parser

	// places are its workers on other machines (nil: all run here).
	places *isolation.Places

	main    *mainsession.Session
	plan    taskPlan
	follow  *transcript.Follower
	ledger  *runledger.Ledger
	flows   Workflows
	prompts *prompts.Prompter
	archive *archiver.Archiver
	review  *reviewer
	limits  limits.State
	// iso is the worktree isolation (nil: the workers share the folder).
	iso  *isolation.Workspace
	link reconnect.Link
	// gate answers the permission prompts the run's rules cover.
	gate *permgate.Gate
	// warm are the sessions the host started ahead for tasks that may
	// start next (warm.go).
	warm *warmstart.State
	// move, on a run taken up on another host, says what moved (host.go).
	moved *Move
	// checks are the project's checks (checks.go); a round that ended
	// comes back on checked.
	checks  *checkrounds.State
	checked chan checkrounds.Round

	cmds     chan command
	started  chan startResult
	done     chan struct{}
	finished chan struct{}
	// inflight counts the workers starting; returned those whose start
	// returned (so the host counts them) and is not taken yet.
	inflight int
	returned atomic.Int32

	lastFlush time.Time
	pollEvery time.Duration
	// restored: a restored run past confirmation; the loop tells the
	// workflows.
	restored bool
	// stopped: the host stayed away past the bound; the run was stopped as
	// interrupted and its loop ends.
	stopped bool
}

func newRunner(e *Engine, run store.Run, tmpl template.Template, tasks []store.Task, workers []store.Worker) (*runner, error) {
	parser, err := protocol.NewParser(delimiters(tmpl), e.logger)
	if err != nil {
		return nil, err
	}
	st, err := runstatus.ParseRun(run.Status)
	if err != nil {
		return nil, err
	}
	r := &runner{e: e, log: e.logger.With("run", run.ID), run: run, runPos: runPos{status: st}, tmpl: tmpl, parser: parser,
		plan: taskPlan{tasks: tasks, workers: map[string]*workerState{}}, cmds: make(chan command),
		started: make(chan startResult, 64), checked: make(chan checkrounds.Round, 1), done: make(chan struct{}), finished: make(chan struct{})}
	r.warm = warmstart.New(e.host, r.log)
	var perms permrules.Lists
	if tmpl.Config.Permissions != nil {
		perms = *tmpl.Config.Permissions
	}
	r.gate = newGate(e, perms, r.log)
	var rs runState
	if len(run.State) > 0 {
		if err := json.Unmarshal(run.State, &rs); err != nil {
			return nil, fmt.Errorf("run state: %w", err)
		}
	}
	if rs.Resume == "" && st == RunInterrupted {
		rs.Resume = run.ResumeStatus // stored by store.Interrupt
	}
	if rs.Resume != "" {
		if r.resume, err = runstatus.ParseRun(rs.Resume); err != nil {
			return nil, err
		}
	}
	values := map[string]any{}
	for k, v := range run.Variables {
		values[k] = v
	}
	values[template.VarUserRequest] = run.Request
	values[template.VarCWD] = run.Cwd
	for _, w := range workers {
		ws := &workerState{w: w}
		if ws.status, err = runstatus.ParseWorker(w.Status); err != nil {
			return nil, err
		}
		if len(w.State) > 0 {
			if err := json.Unmarshal(w.State, &ws.book); err != nil {
				return nil, fmt.Errorf("worker %s state: %w", w.TaskID, err)
			}
		}
		ws.activity = e.now()
		r.plan.workers[w.TaskID] = ws
	}
	r.pollEvery = time.Duration(tmpl.Config.PollInterval * float64(time.Second))
	if r.pollEvery <= 0 {
		r.pollEvery = 2 * time.Second
	}
	r.limits = rs.Limits
	r.checks = checkrounds.Restored(rs.Checks)
	if rs.Worktree != nil || (e.isolated(tmpl) && !st.Finished()) {
		r.iso = isolation.New(rs.Worktree, run.Cwd, e.worktreeRoot, run.ID, r.log)
		r.places = isolation.NewPlaces(e.placement, run.ID, tmpl.Config.Machines, tmpl.Config.Transport == TransportMailbox, r.log)
		r.iso.Bring = r.places.Bring
		if !st.Finished() {
			r.places.Adopt(r.iso, run.Cwd, func(taskID string) session.ID {
				if ws := r.plan.workers[taskID]; ws != nil {
					return session.ID(ws.w.SessionID)
				}
				return ""
			})
		}
	}
	r.link.Retry(time.Now()) // a restored run's wait counts from now
	r.follow = transcript.NewFollower(e.host, e.now, r.pollEvery)
	r.main = &rs.Main
	r.main.Attach(e.host, r.log)
	r.archive = archiver.New(e.host, e.untrack, r.log)
	r.ledger = e.newLedger(run.ID)
	r.flows = e.workflows(workflows.Run{ID: run.ID, Cwd: run.Cwd, Request: run.Request, Config: tmpl.Config,
		Values: values, Delimiters: delimiters(tmpl), Home: e.home, Now: e.now, Log: r.log})
	r.review = &reviewer{Reviewing: rs.Reviewing, Remediation: rs.Remediation, tmpl: tmpl, flows: r.flows}
	var dirs prompts.Folders
	if r.iso != nil {
		dirs = r.iso
	}
	r.prompts = prompts.New(tmpl, values, run.Cwd, parser, e.host, r.flows, dirs)
	return r, nil
}

// loop owns the run: every change of its state happens here. It ends when
// the run is finished, when ctx ends (Restore takes the run up again), or
// when a change could not be saved (likewise). Its caller closes r.done
// once the engine no longer lists the run as driven.
func (r *runner) loop(parent context.Context) {
	// Goroutines the run starts (session starts) end with it.
	ctx, stop := context.WithCancel(parent)
	defer stop()
	defer r.archive.Wait()
	defer r.warm.CoolAll()
	defer r.follow.Stop()
	defer r.flows.Close()
	ticker := time.NewTicker(r.pollEvery)
	defer ticker.Stop()
	flush := time.NewTicker(r.e.progress)
	defer flush.Stop()
	if r.restored {
		r.flows.Restored()
	}
	r.checkLink(ctx)
	if !r.stopped && !r.link.Waiting() {
		r.step(ctx, true)
	}
	for !r.ledger.Halted(&r.run, nil) && !r.stopped {
		poll := false
		select {
		case <-r.e.host.Link().Changed:
		case <-r.link.GiveUp():
		case <-ctx.Done():
			r.ledger.Halted(&r.run, r.flushProgress(context.WithoutCancel(ctx)))
			return
		case c := <-r.cmds:
			c.reply <- c.fn(ctx, r)
		case <-r.follow.Wake():
		case res := <-r.started:
			if ctx.Err() != nil {
				// Stopping: the store keeps the worker as spawning and
				// Restore asks the host whether its session exists.
				return
			}
			if r.ledger.Halted(&r.run, r.onStarted(ctx, res)) {
				return
			}
		case res := <-r.checked:
			if c, ok := checked(ctx, r.e.store, r.checks, res, r.run.ID, r.e.now(), r.log); ok && r.ledger.Halted(&r.run, r.apply(ctx, c)) {
				return
			}
		case rep := <-r.flows.Reports():
			if r.ledger.Halted(&r.run, r.onMail(ctx, rep)) {
				return
			}
		case <-ticker.C:
			poll = true
		case <-flush.C:
			r.ledger.Halted(&r.run, r.flushProgress(ctx))
			continue
		}
		if r.ledger.Halted(&r.run, nil) {
			return
		}
		if r.checkLink(ctx) {
			continue // the host is lost: no step until it is back
		}
		r.step(ctx, poll)
		r.archive.Flush(ctx)
		if r.status.Finished() && r.inflight == 0 {
			r.ledger.Halted(&r.run, r.flushProgress(ctx))
			return
		}
	}
}

// step reads what changed and moves the run on.
func (r *runner) step(ctx context.Context, poll bool) {
	if ctx.Err() != nil {
		return
	}
	dirty := r.follow.Take()
	if r.status.Finished() {
		return
	}
	if r.main.Asked == "" {
		// A phase of the main session without its prompt: the process
		// stopped between the status change and the prompt. Ask again.
		if r.ledger.Halted(&r.run, r.askAgain(ctx)) || r.status.Finished() {
			return
		}
	}
	if kind, ok := dirty[session.ID(r.run.MainSessionID)]; (ok && kind != session.NoticeMessage || poll) && !r.status.Held() {
		if r.ledger.Halted(&r.run, r.checkMainPermissions(ctx)) {
			return
		}
	}
	if r.main.Asked != "" && !r.status.Held() && r.limits.MainWait == nil {
		if _, ok := dirty[session.ID(r.run.MainSessionID)]; ok || poll {
			if r.ledger.Halted(&r.run, r.checkMain(ctx)) {
				return
			}
		}
		if secs, late := r.main.Overdue(r.tmpl.Phases, r.e.now()); late {
			if err := r.e.host.Interrupt(ctx, session.ID(r.run.MainSessionID)); err != nil {
				r.log.Debug("interrupt the main session", "err", err)
			}
			if r.ledger.Halted(&r.run, r.fail(ctx, fmt.Sprintf("the %s answer did not come within %d s", r.main.Asked, secs))) {
				return
			}
		}
	}
	for _, check := range []func(context.Context) error{
		func(ctx context.Context) error { return r.checkWorkers(ctx, dirty, poll) },
		func(ctx context.Context) error {
			c, ok, err := budgetStep(&r.runPos, &r.limits, r.tmpl.Config.Budget, &r.plan, r.main)
			if err != nil || !ok {
				return err
			}
			return r.apply(ctx, c)
		},
		func(ctx context.Context) error {
			c, resume := limitStep(&r.runPos, &r.limits, r.e.now(), r.e.autoResume, r.run.Message)
			if c != nil {
				if err := r.apply(ctx, *c); err != nil {
					return err
				}
			}
			if !resume {
				return nil
			}
			return r.resumeWaiting(ctx)
		},
		r.checkTimeouts, r.mergeWork, r.schedule, r.warmSoon,
		func(ctx context.Context) error {
			if why := deadlockStep(&r.runPos, r.inflight, r.checks, &r.plan); why != "" {
				return r.fail(ctx, why)
			}
			return nil
		},
		r.afterWorkers,
	} {
		if r.ledger.Halted(&r.run, check(ctx)) {
			return
		}
	}
	if time.Since(r.lastFlush) >= r.e.progress {
		r.ledger.Halted(&r.run, r.flushProgress(ctx))
	}
}

// sync writes the working state into the run row and the worker rows.
func (r *runner) sync() error {
	r.run.Status = r.status.String()
	r.run.ResumeStatus = ""
	st := runState{Main: *r.main, Reviewing: r.review.Reviewing, Remediation: r.review.Remediation, Limits: r.limits, Checks: r.checks}
	if r.iso != nil {
		st.Worktree = r.iso.State
	}
	if r.status.Held() {
		r.run.ResumeStatus = r.resume.String()
		st.Resume = r.resume.String()
	}
	state, err := json.Marshal(st)
	if err != nil {
		return fmt.Errorf("run state: %w", err)
	}
	r.run.State = state
	mainCost, estimated := r.main.Cost()
	for _, ws := range r.plan.workers {
		ws.w.Status = ws.status.String()
		if ws.w.State, err = json.Marshal(ws.book); err != nil {
			return fmt.Errorf("worker %s state: %w", ws.w.TaskID, err)
		}
		_, est := ws.book.Cost()
		estimated = estimated || est
	}
	t := r.plan.tally()
	r.run.TasksTotal = len(r.plan.tasks)
	r.run.TasksCompleted, r.run.TasksFailed, r.run.TasksSkipped = t.done, t.failed, t.skipped
	r.run.InputTokens = t.inputTokens + r.main.InputTokens
	r.run.OutputTokens = t.outputTokens + r.main.OutputTokens
	r.run.CostUSD = t.costUSD + mainCost
	r.run.Limits = limitsRow(&r.limits, r.limits.BudgetNow(r.tmpl.Config.Budget), estimated)
	return nil
}

// apply applies changes in order, each in one commit through the ledger
// with the run row as it is now: the run's message, what the workflows are
// told, the rows (with the final report of a change that finishes the run)
// and the events. When the run is finished, its worktrees are removed
// first, and its sessions archived and its workflows' writes done before
// whoever waits for it is told.
func (r *runner) apply(ctx context.Context, changes ...change) error {
	for _, c := range changes {
		if c.note != nil {
			r.run.Message = *c.note
		}
		for _, d := range c.done {
			done := workflows.Done{Notes: d.notes}
			if ws := r.plan.workers[d.id]; ws != nil {
				done.Summary, done.Files = ws.w.Summary, ws.w.OutputFiles
			}
			r.flows.Finished(d.id, d.ok, done)
		}
		if len(c.skipped) > 0 {
			r.flows.Skipped(c.skipped)
		}
		if c.final && c.report == nil {
			if err := r.sync(); err != nil {
				return r.ledger.Refuse(fmt.Errorf("save run %s: %w", r.run.ID, err))
			}
			built := finalReport(ctx, r.e.store, r.log, r.run, &r.plan, c.Answers, r.iso.ResultHolds(ctx, r.run.Cwd, r.log))
			c.report = &built
		}
		if r.status.Finished() && r.iso != nil {
			if note := r.iso.Finish(ctx); note != "" {
				r.run.Message = strings.TrimSpace(r.run.Message + "\n" + note)
			}
			r.places.End(&r.e.wg)
		}
		if err := r.sync(); err != nil {
			return r.ledger.Refuse(fmt.Errorf("save run %s: %w", r.run.ID, err))
		}
		if c.final {
			data, err := json.Marshal(c.report)
			if err != nil {
				return r.ledger.Refuse(fmt.Errorf("save the final report of %s: %w", r.run.ID, err))
			}
			c.FinalReport = data
		}
		sc := c.Change
		run := r.run
		sc.Run = &run
		for _, ws := range c.workers {
			sc.Workers = append(sc.Workers, ws.w)
			ws.dirty = false
		}
		if err := r.ledger.Commit(ctx, sc, c.events...); err != nil {
			return err
		}
		if r.status.Finished() {
			r.archive.Flush(ctx)
			r.archive.Wait()
			r.flows.Flush()
			select {
			case <-r.finished:
			default:
				close(r.finished)
			}
		}
		if c.then != nil {
			next, err := c.then()
			if err != nil {
				return err
			}
			if err := r.apply(ctx, next); err != nil {
				return err
			}
		}
	}
	return nil
}
