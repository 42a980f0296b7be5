package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"time"

	"github.com/baton-app/baton/backend/protocol"
	"github.com/baton-app/baton/backend/session"
	"github.com/baton-app/baton/backend/store"
	"github.com/baton-app/baton/backend/template"
)

type command struct {
	fn    func(context.Context, *runner) error
	reply chan error
}

// mainSession is the main session's state beyond the run row: where its
// transcript is read, and which answer its last prompt asked for.
type mainSession struct {
	transcriptCursor
	// Asked is the protocol phase the last prompt asked for ("" none).
	Asked     protocol.Phase `json:"asked,omitempty"`
	Reprompts int            `json:"reprompts"`
	AskedAt   time.Time      `json:"askedAt"`

	// action is the session's latest action, sent coalesced as
	// orchestrator:progress when progressed.
	action     string
	progressed bool
}

// runState is the run's state beyond its row, stored in Run.State.
type runState struct {
	Main   mainSession `json:"main"`
	Resume string      `json:"resume,omitempty"`
	// Reviewing is the task whose review the main session was asked for.
	Reviewing string `json:"reviewing,omitempty"`
	// Remediation counts the QA rounds that added remediation tasks.
	Remediation int `json:"remediation,omitempty"`
	// Limits: waits for limits, the worker count after them, the budget.
	Limits limitState `json:"limits,omitzero"`
	// Worktree is the run's worktree isolation (isolation.go).
	Worktree *isoState `json:"worktree,omitempty"`
}

type startResult struct {
	taskID  string
	attempt int
	id      session.ID
	err     error
}

// runner owns one run: its loop and its phase machine. What it does with
// sessions, tasks, the store and the seed workflows it asks of its
// collaborators (see doc.go).
type runner struct {
	e      *Engine
	run    store.Run
	status RunStatus
	resume RunStatus
	tmpl   template.Template
	parser *protocol.Parser
	values map[string]any
	main   mainSession

	plan   taskPlan
	follow *follower
	ledger *ledger
	hooks  hooks

	cmds     chan command
	started  chan startResult
	done     chan struct{}
	finished chan struct{}
	inflight int

	// reviewing is the task the main session reviews (runState.Reviewing).
	reviewing string
	// remediation is runState.Remediation.
	remediation int
	// limits is runState.Limits (limits.go, budget.go).
	limits    limitState
	lastFlush time.Time
	pollEvery time.Duration
	// archive archives the sessions of the workers that reported.
	archive *archiver
	// restored: a restored run past confirmation; the loop tells the hooks.
	restored bool
	// interrupted: the ledger broke and the run was stopped as interrupted.
	interrupted bool
	// recon is set while the run waits for its lost host (reconnect.go);
	// written under e.mu, read by the loop.
	recon *reconnect
	// stopped: the host stayed away past the bound; the run was stopped as
	// interrupted and its loop ends.
	stopped bool
	// mainGone: the host no longer has the main session; the next prompt
	// starts a new one with a summary of the run so far.
	mainGone bool
	// iso is the worktree isolation (nil: the workers share the folder).
	iso *isoState
}

func newRunner(e *Engine, run store.Run, tmpl template.Template, tasks []store.Task, workers []store.Worker) (*runner, error) {
	parser, err := protocol.NewParser(delimiters(tmpl), e.logger)
	if err != nil {
		return nil, err
	}
	st, err := ParseRunStatus(run.Status)
	if err != nil {
		return nil, err
	}
	r := &runner{e: e, run: run, status: st, tmpl: tmpl, parser: parser,
		plan: taskPlan{tasks: tasks, workers: map[string]*workerState{}}, cmds: make(chan command),
		started: make(chan startResult, 64), done: make(chan struct{}), finished: make(chan struct{})}
	var rs runState
	if len(run.State) > 0 {
		if err := json.Unmarshal(run.State, &rs); err != nil {
			return nil, fmt.Errorf("run state: %w", err)
		}
	}
	r.main = rs.Main
	r.reviewing = rs.Reviewing
	r.remediation = rs.Remediation
	r.limits = rs.Limits
	if r.iso = rs.Worktree; r.iso == nil && e.isolated(tmpl) && !st.Finished() {
		r.iso = &isoState{}
	}
	if rs.Resume == "" && st == RunInterrupted {
		rs.Resume = run.ResumeStatus // stored by store.Interrupt
	}
	if rs.Resume != "" {
		if r.resume, err = ParseRunStatus(rs.Resume); err != nil {
			return nil, err
		}
	}
	r.values = map[string]any{}
	for k, v := range run.Variables {
		r.values[k] = v
	}
	r.values[template.VarUserRequest] = run.Request
	r.values[template.VarCWD] = run.Cwd
	for _, w := range workers {
		ws := &workerState{w: w}
		if ws.status, err = ParseWorkerStatus(w.Status); err != nil {
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
	log := r.log()
	r.follow = newFollower(e.host, e.hostWait, e.now, r.pollEvery)
	r.archive = &archiver{host: e.host, hostWait: e.hostWait, untrack: e.untrack, log: log}
	r.ledger = &ledger{store: e.store, emit: e.emit, runID: run.ID, log: log}
	r.hooks = &seedHooks{
		skills:  newSkillsHook(tmpl.Config.Skills, run.Cwd, e.home),
		journal: newJournalHook(tmpl.Config.Journal, run.Cwd, run.Request, e.now, log),
		mail:    newMailHook(tmpl.Config, run.Cwd, run.ID, r.values, log),
		w:       newWriter(log),
	}
	return r, nil
}

func (r *runner) log() *slog.Logger { return r.e.logger.With("run", r.run.ID) }

// markDirty notes that session id changed (from any goroutine).
func (r *runner) markDirty(id session.ID, kind session.NoticeKind) { r.follow.mark(id, kind) }

func (r *runner) hostCtx(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, r.e.hostWait)
}

// loop owns the run: every change of its state happens here. It ends when
// the run is finished, when ctx ends (Restore takes the run up again), or
// when a change could not be saved (likewise). Its caller closes r.done
// once the engine no longer lists the run as driven.
func (r *runner) loop(parent context.Context) {
	// Goroutines the run starts (session starts) end with it.
	ctx, stop := context.WithCancel(parent)
	defer stop()
	defer r.archive.wait()
	defer r.follow.stop()
	defer r.hooks.close()
	ticker := time.NewTicker(r.pollEvery)
	defer ticker.Stop()
	flush := time.NewTicker(r.e.progress)
	defer flush.Stop()
	if r.restored {
		r.hooks.restored()
	}
	r.checkLink(ctx)
	if !r.stopped && r.recon == nil {
		r.step(ctx, true)
	}
	for !r.halted(nil) && !r.stopped {
		poll := false
		linkChanged, giveUp := r.linkWait()
		select {
		case <-linkChanged:
		case <-giveUp:
		case <-ctx.Done():
			r.halted(r.flushProgress(context.WithoutCancel(ctx)))
			return
		case c := <-r.cmds:
			c.reply <- c.fn(ctx, r)
		case <-r.follow.wake:
		case res := <-r.started:
			if ctx.Err() != nil {
				// Stopping: the store keeps the worker as spawning and
				// Restore asks the host whether its session exists.
				return
			}
			if r.halted(r.onStarted(ctx, res)) {
				return
			}
		case rep := <-r.hooks.reports():
			if r.halted(r.onMail(ctx, rep)) {
				return
			}
		case <-ticker.C:
			poll = true
		case <-flush.C:
			r.halted(r.flushProgress(ctx))
			continue
		}
		if r.halted(nil) {
			return
		}
		if r.checkLink(ctx) {
			continue // the host is lost: no step until it is back
		}
		r.step(ctx, poll)
		r.archive.flush(ctx)
		if r.status.Finished() && r.inflight == 0 {
			r.halted(r.flushProgress(ctx))
			return
		}
	}
}

// halted reports whether the run must stop because a change could not be
// saved (the ledger logged it). Any other error of a step is logged, and
// the step goes on.
func (r *runner) halted(err error) bool {
	if broken := r.ledger.broken(); broken != nil {
		r.interrupt(broken)
		return true
	}
	if err != nil {
		r.log().Warn("step", "err", err)
	}
	return false
}

// interrupt runs once, when the ledger broke: the store stayed unwritable
// through its retries, so the run stops as interrupted with the reason. Only
// the status, the reason and one event row are stored (store.Interrupt), so
// what was stored before stays true; the working state that ran ahead is
// dropped and Resume takes the run up from the store. When even that cannot
// be stored, the stored run keeps its status and Restore takes it up.
const interruptAttempts = 5

func (r *runner) interrupt(cause error) {
	if r.interrupted {
		return
	}
	r.interrupted = true
	reason := "Baton could not save the run's progress, so the run stopped; resume it when the database is writable again. " + cause.Error()
	p := Payload{RunID: r.run.ID, Status: RunInterrupted.String(), Phase: r.run.Phase, Message: reason}
	pj, _ := json.Marshal(p)
	// Each attempt waits out the store's own retry window; a few more give a
	// store that was locked for long a last chance to say why the run stopped.
	var err error
	for range interruptAttempts {
		if err = r.e.store.Interrupt(context.Background(), r.run.ID, reason, store.Event{Name: EventStatusChanged, Payload: pj}); err == nil {
			break
		}
	}
	if err != nil {
		r.log().Error("the run could not be marked interrupted either; Restore takes it up from the store", "err", err)
		return
	}
	r.e.emit(EventStatusChanged, p)
}

// step reads what changed and moves the run on.
func (r *runner) step(ctx context.Context, poll bool) {
	if ctx.Err() != nil {
		return
	}
	dirty := r.follow.take()
	if r.status.Finished() {
		return
	}
	if r.main.Asked == "" {
		// A phase of the main session without its prompt: the process
		// stopped between the status change and the prompt. Ask again.
		if r.halted(r.askAgain(ctx)) || r.status.Finished() {
			return
		}
	}
	if r.main.Asked != "" && !r.status.held() && r.limits.MainWait == nil {
		if _, ok := dirty[session.ID(r.run.MainSessionID)]; ok || poll {
			if r.halted(r.checkMain(ctx)) {
				return
			}
		}
		if r.halted(r.checkPhaseTimeout(ctx)) {
			return
		}
	}
	for _, check := range []func(context.Context) error{
		func(ctx context.Context) error { return r.checkWorkers(ctx, dirty, poll) },
		r.checkBudget, r.checkLimits, r.checkTimeouts, r.isoMerge, r.schedule, r.checkDeadlock, r.afterWorkers,
	} {
		if r.halted(check(ctx)) {
			return
		}
	}
	if time.Since(r.lastFlush) >= r.e.progress {
		r.halted(r.flushProgress(ctx))
	}
}

// sync writes the in-memory state into the run row and worker rows.
func (r *runner) sync() {
	r.run.Status = r.status.String()
	r.run.ResumeStatus = ""
	if r.status.held() {
		r.run.ResumeStatus = r.resume.String()
	}
	st := runState{Main: r.main, Reviewing: r.reviewing, Remediation: r.remediation, Limits: r.limits, Worktree: r.iso}
	if r.status.held() {
		st.Resume = r.resume.String()
	}
	r.run.State, _ = json.Marshal(st)
	for _, ws := range r.plan.workers {
		ws.w.Status = ws.status.String()
		ws.w.State, _ = json.Marshal(ws.book)
	}
	t := r.plan.tally()
	r.run.TasksTotal = len(r.plan.tasks)
	r.run.TasksCompleted, r.run.TasksFailed, r.run.TasksSkipped = t.done, t.failed, t.skipped
	r.run.InputTokens = t.inputTokens + r.main.InputTokens
	r.run.OutputTokens = t.outputTokens + r.main.OutputTokens
	mainCost, _ := r.main.costUSD()
	r.run.CostUSD = t.costUSD + mainCost
	r.run.Limits = r.runLimits()
}

func (r *runner) ev(name string, ws *workerState, msg string) event {
	p := Payload{RunID: r.run.ID, Status: r.status.String(), Phase: r.run.Phase, Message: msg}
	if ws != nil {
		w := ws.w
		w.Status = ws.status.String()
		p.TaskID = w.TaskID
		p.Worker = &w
	}
	return event{name: name, p: p}
}

// commit hands the run row, the given workers (and tasks, answers) with the
// events to the ledger. When the run is finished, its sessions are archived
// and its workflows' writes done before whoever waits for it is told.
func (r *runner) commit(ctx context.Context, c store.Change, workers []*workerState, events ...event) error {
	if r.status.Finished() {
		r.isoFinish(ctx)
	}
	r.sync()
	run := r.run
	c.Run = &run
	for _, ws := range workers {
		c.Workers = append(c.Workers, ws.w)
		ws.dirty = false
	}
	if err := r.ledger.commit(ctx, c, events...); err != nil {
		return err
	}
	if r.status.Finished() {
		r.archive.flush(ctx)
		r.archive.wait()
		r.hooks.flush()
		select {
		case <-r.finished:
		default:
			close(r.finished)
		}
	}
	return nil
}

// move changes the run's status when the transition is legal.
func (r *runner) move(next RunStatus) error {
	if !r.status.CanMove(next) {
		return illegalRun(r.status, next)
	}
	r.status = next
	return nil
}

// unpause returns a paused run to the status it was paused in, whichever
// that was (created included): the guard of that transition.
func (r *runner) unpause() error {
	if !r.status.held() {
		return fmt.Errorf("run is %s, not paused: %w", r.status, ErrIllegalTransition)
	}
	r.status = r.resume
	return nil
}

// enter moves the run to the status and phase of a main-session phase.
func (r *runner) enter(next RunStatus, phase Phase) error {
	if err := r.move(next); err != nil {
		return err
	}
	r.run.Phase = string(phase)
	return nil
}
