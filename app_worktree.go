package main

import (
	"errors"
	"strings"

	"github.com/baton-app/baton/backend/view"
	"github.com/baton-app/baton/backend/worktree"
)

// The bindings of worktree isolation: a task's patch, the run's merge
// conflict, and Apply or Discard of the run branch at the end.

// TaskPatch returns the unified diff of one task's changes on the run
// branch.
func (a *App) TaskPatch(runID, taskID string) (string, error) {
	ctx, cancel := runCtx()
	defer cancel()
	patch, err := a.Runs.TaskPatch(ctx, runID, taskID)
	if err != nil {
		return "", runError("read the task's changes", err)
	}
	return patch, nil
}

// ApplyRun merges the run branch into the current branch of the run's
// repository (refused, changing nothing, when uncommitted changes touch the
// same files).
func (a *App) ApplyRun(runID string) (view.Applied, error) {
	ctx, cancel := runCtx()
	defer cancel()
	applied, err := a.Runs.Apply(ctx, runID)
	if err != nil {
		var de *worktree.DirtyOverlapError
		var ce *worktree.ApplyConflictError
		if errors.As(err, &de) || errors.As(err, &ce) {
			return applied, errors.New(sentence(err.Error()))
		}
		return applied, runError("apply the run's changes", err)
	}
	return applied, nil
}

// DiscardRun drops the run branch; the user's branch stays as it is.
func (a *App) DiscardRun(runID string) error {
	ctx, cancel := runCtx()
	defer cancel()
	if err := a.Runs.Discard(ctx, runID); err != nil {
		return runError("discard the run's changes", err)
	}
	return nil
}

// ResolveConflict answers the run's merge conflict: resolved (the files in
// the run's worktree were fixed) or not (the task's changes are left out).
func (a *App) ResolveConflict(runID string, resolved bool) error {
	if strings.TrimSpace(runID) == "" {
		return errors.New("Choose the run whose conflict to resolve.")
	}
	ctx, cancel := runCtx()
	defer cancel()
	if err := a.Runs.ResolveConflict(ctx, runID, resolved); err != nil {
		return runError("resolve the merge conflict", err)
	}
	return nil
}
