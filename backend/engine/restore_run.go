package engine

import (
	"context"
	"errors"
	"fmt"

	"github.com/baton-app/baton/backend/store"
)

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
