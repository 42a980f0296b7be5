package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/baton-app/baton/backend/runhost"
	"github.com/baton-app/baton/backend/session"
	"github.com/baton-app/baton/backend/store"
	"github.com/baton-app/baton/backend/template"
)

// Runs the engine takes up from the store: every unfinished run when Baton
// starts (Restore), one run (RestoreRun), and a held run that Resume
// continues (restoreHeld). A restored run re-attaches to its sessions by id
// (runner.reattach).

// Restore loads every unfinished run from the store and takes it up again,
// re-attaching to worker sessions by id: a task whose session is alive is
// never started a second time. It returns how many runs it restored.
func (e *Engine) Restore(ctx context.Context) (int, error) {
	runs, err := e.store.Unfinished(ctx)
	if err != nil {
		return 0, fmt.Errorf("restore: %w", err)
	}
	n := 0
	var errs []error
	for _, run := range runs {
		if e.driving(run.ID) {
			continue
		}
		if err := e.otherHost(run); err != nil {
			// It waits for its own host (or a move the user asks for).
			e.logger.Info("a run of another host is left as it is", "run", run.ID, "host", runhost.Name(run.Host))
			continue
		}
		err := e.restoreRun(ctx, run, nil)
		if errors.Is(err, ErrDriven) {
			e.logger.Info("not restored: another process drives it", "run", run.ID, "err", err)
			continue
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("restore run %s: %w", run.ID, err))
			continue
		}
		n++
	}
	return n, errors.Join(errs...)
}

// restoreRun takes run up: its lock first (a run another live process
// drives is a *DrivenError), then its sessions, then its loop; with mv the
// run moves to the host in use (mv is filled in with what moved).
func (e *Engine) restoreRun(ctx context.Context, run store.Run, mv *Move) (err error) {
	var tmpl template.Template
	if err := json.Unmarshal(run.Template, &tmpl); err != nil {
		return fmt.Errorf("template: %w", err)
	}
	tasks, err := e.store.Tasks(ctx, run.ID)
	if err != nil {
		return err
	}
	workers, err := e.store.Workers(ctx, run.ID)
	if err != nil {
		return err
	}
	r, err := newRunner(e, run, tmpl, tasks, workers)
	if err != nil {
		return err
	}
	if err := r.ledger.Lock(ctx, e.owner); err != nil {
		return err
	}
	defer func() {
		if err != nil {
			r.ledger.Unlock(e.owner)
		}
	}()
	if r.gate.Run, err = e.store.PermissionRules(ctx, run.ID); err != nil {
		return err
	}
	r.moved = mv
	if err := r.reattach(ctx); err != nil {
		return err
	}
	return e.launch(r)
}

// driving reports whether the engine drives run runID.
func (e *Engine) driving(runID string) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	_, ok := e.runs[runID]
	return ok
}

// RestoreRun takes up one unfinished run, as Restore does for all of them:
// "baton run --resume" continues its own run without taking over the runs of
// Baton's window.
func (e *Engine) RestoreRun(ctx context.Context, runID string) error {
	if e.driving(runID) {
		return nil
	}
	run, err := e.store.Run(ctx, runID)
	if errors.Is(err, store.ErrNotFound) {
		return fmt.Errorf("run %s: %w", runID, ErrUnknownRun)
	}
	if err != nil {
		return err
	}
	if store.Finished(run.Status) {
		return fmt.Errorf("run %s is already %s and cannot be resumed: %w", runID, run.Status, ErrIllegalTransition)
	}
	if err := e.otherHost(run); err != nil {
		return err
	}
	return e.restoreRun(ctx, run, nil)
}

// restoreHeld takes up a paused or interrupted run that no loop drives, so
// that Resume (the window's Resume button) continues it without a restart.
func (e *Engine) restoreHeld(ctx context.Context, runID string) error {
	if e.driving(runID) {
		return nil
	}
	run, err := e.store.Run(ctx, runID)
	if err != nil {
		return nil // do names the problem
	}
	if err := e.otherHost(run); err != nil && !store.Finished(run.Status) {
		return err
	}
	if run.Status != RunInterrupted.String() && run.Status != RunPaused.String() {
		return nil
	}
	return e.RestoreRun(ctx, runID)
}

// reattach prepares a restored run: each worker session that exists is
// followed again from where it was read; one that never started is started
// again under the same id; one the host lost runs again.
func (r *runner) reattach(ctx context.Context) error {
	// The loop takes up the workflows' files (the mailbox) when it starts,
	// so that what they start is owned by the run's goroutine.
	r.restored = !r.status.Finished() && r.status >= RunSpawning
	for _, ws := range r.plan.inOrder() {
		if r.moved != nil && ws.status == WorkerCompleted {
			r.moved.Kept = append(r.moved.Kept, ws.w.TaskID)
		}
		if !ws.mayHaveSession() {
			continue
		}
		var serr error
		if r.moved != nil {
			// Its session is on the host the run left.
			serr = fmt.Errorf("the run moved to %s: %w", runhost.Name(r.moved.To), session.ErrNoSession)
		} else {
			_, serr = r.e.host.Session(ctx, session.ID(ws.w.SessionID))
		}
		step, err := ws.restored(serr, r.e.now())
		switch {
		case err != nil:
		case r.moved != nil && step == restoreLost:
			// A move is the user's: the task starts again in a new
			// session there, without using a retry.
			r.moved.Restarted = append(r.moved.Restarted, ws.w.TaskID)
			var c change
			if c, err = r.plan.requeue(ws, "the run moved to "+runhost.Name(r.moved.To)+"; the task starts again there", false, true); err == nil && ctx.Err() == nil {
				err = r.apply(ctx, c)
			}
		case r.moved != nil && step == restoreFollow && ws.status == WorkerPending:
			r.moved.Restarted = append(r.moved.Restarted, ws.w.TaskID)
		case step == restoreFollow && serr != nil:
			r.log.Warn("worker session not checked on restore", "task", ws.w.TaskID, "err", serr)
		case step == restoreStop:
			err = r.workerFailed(ctx, ws, ws.w.Error, true)
		case step == restoreLost:
			r.log.Warn("worker session is gone", "task", ws.w.TaskID, "err", serr)
			reason := fmt.Sprintf("the worker session was lost: %v", serr)
			if !r.status.Held() || ws.book.AutoRetries >= r.tmpl.Config.MaxRetries {
				err = r.workerFailed(ctx, ws, reason, true)
				break
			}
			// A held run (an interrupted one, whose host came back without
			// its sessions) runs the task again once it is resumed.
			var c change
			if c, err = r.plan.requeue(ws, reason, true, true); err == nil && ctx.Err() == nil {
				err = r.apply(ctx, c)
			}
		}
		if err != nil {
			return err
		}
	}
	if r.moved != nil && r.run.MainSessionID != "" {
		// The main session stays on the host the run left: the next
		// prompt starts a new one that first reads the run so far.
		r.moved.Main = r.main.Asked != "" || r.main.At.Index != 0
		r.main.Leave()
	} else {
		r.main.Restored(ctx, r.run.MainSessionID, r.status != RunCreated && !r.status.Finished(), r.e.now())
	}
	// Announce the restored state; a run that waits for confirmation shows
	// its plan again, so a view (or "baton run --resume") can ask for it.
	c := change{}.with(r.plan.inOrder(), newEvent(EventStatusChanged, nil, "restored"))
	if r.moved != nil {
		r.run.Host = r.moved.To
		r.moved.Message = r.moved.Said()
		c = c.with(nil, newEvent(EventHostMoved, nil, r.moved.Message)).say(r.moved.Message)
	}
	if r.status == RunConfirming {
		ready := newEvent(EventTasksReady, nil, "")
		ready.P.Tasks, ready.P.Groups = r.plan.tasks, ParallelGroups(r.plan.tasks)
		c = c.with(nil, ready)
		var tle *TaskListError
		if err := CheckTasks(r.plan.tasks, r.tmpl.Config.MaxTasks); errors.As(err, &tle) {
			inv := newEvent(EventTasksInvalid, nil, err.Error())
			inv.P.Problems = tle.Problems
			c = c.with(nil, inv)
		}
	}
	return r.apply(ctx, c)
}
