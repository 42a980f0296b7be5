package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

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
		e.mu.Lock()
		_, active := e.runs[run.ID]
		e.mu.Unlock()
		if active {
			continue
		}
		if err := e.restoreRun(ctx, run); err != nil {
			errs = append(errs, fmt.Errorf("restore run %s: %w", run.ID, err))
			continue
		}
		n++
	}
	return n, errors.Join(errs...)
}

func (e *Engine) restoreRun(ctx context.Context, run store.Run) error {
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
	if err := r.reattach(ctx); err != nil {
		return err
	}
	return e.launch(r)
}

// RestoreRun takes up one unfinished run, as Restore does for all of them:
// "baton run --resume" continues its own run without taking over the runs of
// Baton's window.
func (e *Engine) RestoreRun(ctx context.Context, runID string) error {
	e.mu.Lock()
	_, active := e.runs[runID]
	e.mu.Unlock()
	if active {
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
	return e.restoreRun(ctx, run)
}

// restoreHeld takes up a paused or interrupted run that no loop drives, so
// that Resume (the window's Resume button) continues it without a restart.
func (e *Engine) restoreHeld(ctx context.Context, runID string) error {
	e.mu.Lock()
	_, active := e.runs[runID]
	e.mu.Unlock()
	if active {
		return nil
	}
	run, err := e.store.Run(ctx, runID)
	if err != nil {
		return nil // do names the problem
	}
	if run.Status != RunInterrupted.String() && run.Status != RunPaused.String() {
		return nil
	}
	return e.RestoreRun(ctx, runID)
}
