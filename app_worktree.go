package main

import (
	"errors"
	"strings"

	"github.com/baton-app/baton/backend/view"
	"github.com/baton-app/baton/backend/worktree"
)

// The bindings of worktree isolation: a task's patch and the diff view,
// the run's merge conflict, and at the end Apply (all or some tasks),
// Discard, push and pull request of the run branch, and a changed file
// opened in the user's editor.

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
		return applied, applyError(err)
	}
	return applied, nil
}

// ApplyRunTasks applies only the changes of tasks to the current branch of
// the run's repository (all of the run's when tasks is empty). A task
// whose dependency is left out is refused with a sentence naming it.
func (a *App) ApplyRunTasks(runID string, tasks []string) (view.Applied, error) {
	ctx, cancel := runCtx()
	defer cancel()
	applied, err := a.Runs.ApplyTasks(ctx, runID, tasks)
	if err != nil {
		return applied, applyError(err)
	}
	return applied, nil
}

// applyError is a refused Apply as the sentence the user reads.
func applyError(err error) error {
	var de *worktree.DirtyOverlapError
	var ce *worktree.ApplyConflictError
	var pe *worktree.PickConflictError
	if errors.As(err, &de) || errors.As(err, &ce) || errors.As(err, &pe) {
		return errors.New(sentence(err.Error()))
	}
	return runError("apply the run's changes", err)
}

// RunRemotes lists the remotes the run's branch can be pushed to.
func (a *App) RunRemotes(runID string) (view.Remotes, error) {
	ctx, cancel := runCtx()
	defer cancel()
	rs, err := a.Runs.Remotes(ctx, runID)
	if err != nil {
		return rs, runError("read the repository's remotes", err)
	}
	return rs, nil
}

// PushRun pushes the run's branch to remote with the user's own git setup.
func (a *App) PushRun(runID, remote string) (view.Pushed, error) {
	if strings.TrimSpace(remote) == "" {
		return view.Pushed{}, errors.New("Choose the remote to push to.")
	}
	ctx, cancel := runCtx()
	defer cancel()
	p, err := a.Runs.Push(ctx, runID, remote)
	if err != nil {
		return p, runError("push the branch", err)
	}
	return p, nil
}

// OpenPullRequest pushes the run's branch to remote and opens a pull
// request with gh; without gh it returns the command that opens it.
func (a *App) OpenPullRequest(runID, remote string) (view.PullRequestResult, error) {
	if strings.TrimSpace(remote) == "" {
		return view.PullRequestResult{}, errors.New("Choose the remote to push to.")
	}
	ctx, cancel := runCtx()
	defer cancel()
	res, err := a.Runs.PullRequest(ctx, runID, remote)
	if err != nil {
		return res, runError("open the pull request", err)
	}
	return res, nil
}

// RunDiff lists the files of a task's changes (or, with taskID "", of the
// whole run branch), each with its text before and after.
func (a *App) RunDiff(runID, taskID string) ([]view.FileDiff, error) {
	ctx, cancel := runCtx()
	defer cancel()
	ds, err := a.Runs.Diff(ctx, runID, taskID)
	if err != nil {
		return nil, runError("read the changes", err)
	}
	return ds, nil
}

// OpenInEditor opens a file the run changed in the user's editor; the
// window never edits files itself.
func (a *App) OpenInEditor(runID, path string) error {
	if a.Files == nil {
		return errNeedsWindow("Opening a file in your editor")
	}
	ctx, cancel := runCtx()
	defer cancel()
	file, err := a.Runs.ChangedFile(ctx, runID, path)
	if err != nil {
		return runError("find the file", err)
	}
	return a.Files.Edit(file)
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
