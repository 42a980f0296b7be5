package engine

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/baton-app/baton/backend/hostguard"
	"github.com/baton-app/baton/backend/limits"
	"github.com/baton-app/baton/backend/owner"
	"github.com/baton-app/baton/backend/permrules"
	"github.com/baton-app/baton/backend/runledger"
	"github.com/baton-app/baton/backend/runstore"
	"github.com/baton-app/baton/backend/session"
	"github.com/baton-app/baton/backend/store"
	"github.com/baton-app/baton/backend/template"
	"github.com/baton-app/baton/backend/workflows"
)

// Sentinel errors of the engine.
var (
	ErrShuttingDown = errors.New("engine is shutting down")
	ErrUnknownRun   = runstore.ErrUnknownRun
	ErrUnknownTask  = errors.New("unknown task")
	ErrBadRequest   = errors.New("bad request")
)

// Templates is where the engine finds a run's template (template.Manager).
type Templates interface {
	Get(id string) (template.Template, error)
}

// Options are the dependencies of an Engine.
type Options struct {
	Store     *store.Store
	Host      session.Host
	Templates Templates
	// Emitter receives events; nil drops them.
	Emitter Emitter
	Logger  *slog.Logger
	// Now is the clock (default time.Now); tests move it to fire timeouts.
	Now func() time.Time
	// NewID makes run ids (default "orch_" and 12 random hex digits).
	NewID func() string
	// ProgressInterval is the shortest time between two coalesced progress
	// events of one run (default 100 ms, so at most ~10 a second).
	ProgressInterval time.Duration
	// HostTimeout bounds every call to the host that starts or sends
	// (default 60 s); calls that only look or stop are bounded by the
	// shorter of this and 15 s.
	HostTimeout time.Duration
	// ReconnectFor is how long a run waits for a lost host (one that
	// implements HostLink) before it stops as interrupted (default 2 min).
	ReconnectFor time.Duration
	// Home is the folder whose .claude/skills holds the user's skills
	// (default os.UserHomeDir()).
	Home string
	// AutoResumeAfterLimit says whether a run that waited for a limit goes
	// on by itself once it resets (nil: it does); else it waits for
	// ResumeAfterLimit. Asked each time, so a changed setting counts.
	AutoResumeAfterLimit func() bool
	// Placement places a worktree run's workers on the machines its
	// template names (placement.go); nil: every worker runs here.
	Placement Placement
	// WorktreeRoot is the folder under which runs with worktree isolation
	// keep their git worktrees (worktree.DefaultRoot()); empty turns
	// isolation off, so every run shares its folder.
	WorktreeRoot string
	// Workflows opens the seed workflows of a run (default: the mailbox,
	// skills and journal of backend/workflows).
	Workflows func(workflows.Run) Workflows
	// UserRules are the user's permission rules (the settings'), which
	// every run answers prompts by besides its template's and its own.
	// Asked each time, so a changed setting counts; nil: none.
	UserRules func() permrules.Lists
	// Owner is the process the engine drives its runs as, which each run's
	// lock names (default: this process, owner.Self with no face).
	Owner owner.Owner
}

// Engine runs orchestrations. Each run has one goroutine that owns its state;
// the methods send it commands and wait for the answer.
type Engine struct {
	placement Placement
	store     *store.Store
	host      *hostguard.Host
	templates Templates
	emitter   Emitter
	logger    *slog.Logger
	now       func() time.Time
	newID     func() string
	progress  time.Duration
	hostWait  time.Duration
	home      string
	// reconnectFor is Options.ReconnectFor.
	reconnectFor time.Duration
	// autoResumeFn is Options.AutoResumeAfterLimit.
	autoResumeFn func() bool
	// userRules is Options.UserRules.
	userRules func() permrules.Lists
	// worktreeRoot is Options.WorktreeRoot.
	worktreeRoot string
	workflows    func(workflows.Run) Workflows
	// jitter is the factor of a limit's backoff (limits.Jitter).
	jitter func() float64
	// owner is Options.Owner: the process that drives the engine's runs.
	owner owner.Owner

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	// branchMu keeps changes to finished runs' branches (Apply, Discard,
	// push) one at a time.
	branchMu sync.Mutex

	mu       sync.Mutex
	closing  bool
	runs     map[string]*runner
	sessions map[session.ID]*runner
	dispatch bool
}

// New returns an engine. Call Restore to pick up unfinished runs, and
// Shutdown to stop it.
func New(opts Options) (*Engine, error) {
	if opts.Store == nil || opts.Host == nil || opts.Templates == nil {
		return nil, fmt.Errorf("new engine: store, host and templates are required: %w", ErrBadRequest)
	}
	e := &Engine{store: opts.Store, templates: opts.Templates, emitter: opts.Emitter,
		logger: opts.Logger, now: opts.Now, newID: opts.NewID, progress: opts.ProgressInterval,
		hostWait: opts.HostTimeout, home: opts.Home, reconnectFor: opts.ReconnectFor, autoResumeFn: opts.AutoResumeAfterLimit, userRules: opts.UserRules,
		worktreeRoot: opts.WorktreeRoot, workflows: opts.Workflows, jitter: limits.Jitter,
		owner: opts.Owner, placement: opts.Placement, runs: map[string]*runner{}, sessions: map[session.ID]*runner{}}
	if e.owner.PID == 0 {
		e.owner = owner.Self("")
	}
	if e.workflows == nil {
		e.workflows = openWorkflows
	}
	if e.logger == nil {
		e.logger = slog.Default()
	}
	e.logger = e.logger.With("component", "engine")
	if e.now == nil {
		e.now = time.Now
	}
	if e.newID == nil {
		e.newID = randomID
	}
	if e.progress <= 0 {
		e.progress = 100 * time.Millisecond
	}
	if e.hostWait <= 0 {
		e.hostWait = 60 * time.Second
	}
	if e.reconnectFor <= 0 {
		e.reconnectFor = DefaultReconnectFor
	}
	e.host = hostguard.New(opts.Host, e.hostWait, defaultQuickWait)
	e.ctx, e.cancel = context.WithCancel(context.Background())
	if ch := e.host.Notices(); ch != nil {
		e.dispatch = true
		e.wg.Add(1)
		go e.dispatchNotices(ch)
	}
	return e, nil
}

func randomID() string {
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	return "orch_" + hex.EncodeToString(b)
}

// dispatchNotices hands each host notice to the run that owns the session.
func (e *Engine) dispatchNotices(ch <-chan session.Notice) {
	defer e.wg.Done()
	for {
		select {
		case <-e.ctx.Done():
			return
		case n, ok := <-ch:
			if !ok {
				return
			}
			e.mu.Lock()
			r := e.sessions[n.SessionID]
			e.mu.Unlock()
			if r != nil {
				r.follow.Mark(n.SessionID, n.Kind)
			}
		}
	}
}

func (e *Engine) track(id session.ID, r *runner) {
	if id == "" {
		return
	}
	e.mu.Lock()
	e.sessions[id] = r
	e.mu.Unlock()
}

func (e *Engine) untrack(id session.ID) {
	e.mu.Lock()
	delete(e.sessions, id)
	e.mu.Unlock()
}

func (e *Engine) emit(name string, p Payload) {
	if e.emitter != nil {
		e.emitter.Emit(name, p)
	}
}

// newLedger returns the ledger of run runID.
func (e *Engine) newLedger(runID string) *runledger.Ledger {
	return runledger.New(e.store, e.emit, runID, e.logger.With("run", runID))
}

// launch starts the goroutine of a runner.
func (e *Engine) launch(r *runner) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closing {
		return ErrShuttingDown
	}
	e.runs[r.run.ID] = r
	if id := session.ID(r.run.MainSessionID); id != "" {
		e.sessions[id] = r
	}
	for _, w := range r.plan.workers {
		if w.w.SessionID != "" && !w.status.Done() {
			e.sessions[session.ID(w.w.SessionID)] = r
		}
	}
	e.wg.Add(1)
	go func() {
		defer e.wg.Done()
		r.loop(e.ctx)
		e.mu.Lock()
		if e.runs[r.run.ID] == r {
			delete(e.runs, r.run.ID)
		}
		for id, driver := range e.sessions {
			if driver == r {
				delete(e.sessions, id)
			}
		}
		e.mu.Unlock()
		// Another process may take the run up now.
		r.ledger.Unlock(e.owner)
		// Done only now: whoever waits for the run sees it no longer driven.
		close(r.done)
	}()
	return nil
}

// do runs fn in the goroutine of run id and returns its error. A run that is
// not active (finished) gets ErrIllegalTransition naming its status.
func (e *Engine) do(ctx context.Context, id string, fn func(context.Context, *runner) error) error {
	e.mu.Lock()
	closing := e.closing
	r := e.runs[id]
	e.mu.Unlock()
	if closing {
		return ErrShuttingDown
	}
	if r == nil {
		run, err := e.store.Run(ctx, id)
		if errors.Is(err, store.ErrNotFound) {
			return fmt.Errorf("run %s: %w", id, ErrUnknownRun)
		}
		if err != nil {
			return err
		}
		return notDriven(id, run.Status)
	}
	reply := make(chan error, 1)
	select {
	case r.cmds <- command{fn: fn, reply: reply}:
	case <-r.done:
		if broken := r.ledger.Broken(); broken != nil {
			// The loop stopped first: the store stayed unwritable.
			return fmt.Errorf("run %s stopped because Baton could not save its progress: %w", id, broken)
		}
		return notDriven(id, r.status.String())
	case <-ctx.Done():
		return ctx.Err()
	}
	select {
	case err := <-reply:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// errLetGo: the run is held (paused or interrupted) and no loop of this
// engine drives it any more; Resume takes it up again.
var errLetGo = errors.New("no loop drives the held run")

// notDriven is the error of a command for run id, in status, that no loop
// takes: a held run's wraps errLetGo too.
func notDriven(id, status string) error {
	err := fmt.Errorf("run %s is %s and can no longer change: %w", id, status, ErrIllegalTransition)
	if status == RunPaused.String() || status == RunInterrupted.String() {
		return heldError{err}
	}
	return err
}

// heldError is the error of a command for a held run no loop drives: its
// sentence, and errLetGo.
type heldError struct{ error }

func (e heldError) Unwrap() []error { return []error{e.error, errLetGo} }

// Snapshot returns the current state of run id from the store, which holds
// every committed change (progress at most ProgressInterval behind). It
// never waits for the run's goroutine, so a view is not held up by a slow
// host call.
func (e *Engine) Snapshot(ctx context.Context, runID string) (Snapshot, error) {
	snap, err := LoadSnapshot(ctx, e.store, runID)
	if err == nil {
		snap.Reconnecting = e.Reconnecting(runID)
	}
	return snap, err
}

// Wait blocks until run id is finished (completed, cancelled or error) or
// ctx ends, and returns the stored run.
func (e *Engine) Wait(ctx context.Context, runID string) (store.Run, error) {
	e.mu.Lock()
	r := e.runs[runID]
	e.mu.Unlock()
	if r != nil {
		select {
		case <-r.finished:
		case <-r.done:
		case <-ctx.Done():
			return store.Run{}, ctx.Err()
		}
	}
	run, err := e.store.Run(ctx, runID)
	if errors.Is(err, store.ErrNotFound) {
		return store.Run{}, fmt.Errorf("run %s: %w", runID, ErrUnknownRun)
	}
	return run, err
}

// Active returns the ids of the runs the engine is driving.
func (e *Engine) Active() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	out := make([]string, 0, len(e.runs))
	for id := range e.runs {
		out = append(out, id)
	}
	return out
}

// Shutdown stops taking work, stops every run's goroutine (their state is in
// the store; Restore picks them up) and waits for them, giving up with
// ctx.Err() when ctx ends first.
func (e *Engine) Shutdown(ctx context.Context) error {
	e.mu.Lock()
	e.closing = true
	e.mu.Unlock()
	e.cancel()
	done := make(chan struct{})
	go func() {
		e.wg.Wait()
		close(done)
	}()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
