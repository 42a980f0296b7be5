package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/baton-app/baton/backend/isolation"
	"github.com/baton-app/baton/backend/runstore"
	"github.com/baton-app/baton/backend/store"
	"github.com/baton-app/baton/backend/worktree"
)

// A finished run's branch (isolation/finished.go does the git work): Apply
// and Discard, some of its tasks applied, its push to a remote and its
// pull request, its diff, a task's patch, and a changed file to open.
// Every change goes through onBranch and its ledger.

// onBranch changes the stored worktree state of finished run runID with do
// and commits it with an EventWorktree saying what do returns. Changes of
// branches go one at a time; a branch that was applied or discarded
// already is refused.
func (e *Engine) onBranch(ctx context.Context, runID string, do func(*isolation.State) (string, error)) error {
	e.branchMu.Lock()
	defer e.branchMu.Unlock()
	run, err := e.store.Run(ctx, runID)
	if errors.Is(err, store.ErrNotFound) {
		return fmt.Errorf("run %s: %w", runID, ErrUnknownRun)
	}
	if err != nil {
		return err
	}
	if !store.Finished(run.Status) {
		return fmt.Errorf("run %s is %s; its branch can be applied, discarded or pushed once it has ended: %w", runID, run.Status, ErrIllegalTransition)
	}
	var rs runState
	if err := json.Unmarshal(run.State, &rs); err != nil {
		return fmt.Errorf("run state: %w", err)
	}
	iso := rs.Worktree
	if iso == nil || iso.Run == nil {
		return fmt.Errorf("run %s has no branch of its own: %w", runID, ErrBadRequest)
	}
	if iso.Outcome != "" {
		return fmt.Errorf("the branch of run %s is already %s: %w", runID, iso.Outcome, ErrIllegalTransition)
	}
	msg, err := do(iso)
	if err != nil {
		return err
	}
	if iso.Outcome != "" {
		run.Message = iso.Ended(run.Message, msg) // it offers Apply no more
	}
	if run.State, err = json.Marshal(rs); err != nil {
		return fmt.Errorf("save run %s: %w", runID, err)
	}
	return e.newLedger(runID).Commit(ctx, store.Change{Run: &run}, newEvent(EventWorktree, nil, msg))
}

// refused is an error of isolation's about a run's branch as the engine's
// (ErrBadRequest, ErrUnknownTask), its sentence kept.
func refused(err error) error {
	switch {
	case errors.Is(err, isolation.ErrNoTask):
		return also{err, ErrUnknownTask}
	case errors.Is(err, isolation.ErrRefused):
		return also{err, ErrBadRequest}
	}
	return err
}

// also is an error that is also another.
type also struct {
	error
	other error
}

func (a also) Unwrap() []error { return []error{a.error, a.other} }

// Apply merges a finished run's branch into the user's current branch (a
// fast forward where possible) and removes the branch (isolation.State.Apply).
func (e *Engine) Apply(ctx context.Context, runID string) (worktree.Applied, error) {
	var applied worktree.Applied
	err := e.onBranch(ctx, runID, func(iso *isolation.State) (msg string, err error) {
		applied, msg, err = iso.Apply(ctx)
		return msg, err
	})
	return applied, refused(err)
}

// Discard drops a finished run's branch and worktrees; the user's branch
// stays as it is.
func (e *Engine) Discard(ctx context.Context, runID string) error {
	return refused(e.onBranch(ctx, runID, func(iso *isolation.State) (string, error) { return iso.Discard(ctx) }))
}

// ApplyTasks applies only the changes of tasks taskIDs of a finished run to
// the user's current branch (isolation.State.ApplyTasks); without tasks it
// is Apply.
func (e *Engine) ApplyTasks(ctx context.Context, runID string, taskIDs []string) (worktree.Applied, error) {
	if len(taskIDs) == 0 {
		return e.Apply(ctx, runID)
	}
	tasks, err := e.store.Tasks(ctx, runID)
	if err != nil {
		return worktree.Applied{}, err
	}
	var applied worktree.Applied
	err = e.onBranch(ctx, runID, func(iso *isolation.State) (msg string, err error) {
		applied, msg, err = iso.ApplyTasks(ctx, tasks, taskIDs)
		return msg, err
	})
	return applied, refused(err)
}

// Push pushes a finished run's branch to remote, one of the repository's
// remotes, with the user's own git setup, and returns what git said.
func (e *Engine) Push(ctx context.Context, runID, remote string) (string, error) {
	var said string
	err := e.onBranch(ctx, runID, func(iso *isolation.State) (msg string, err error) {
		said, msg, err = iso.Push(ctx, remote, e.now())
		return msg, err
	})
	return said, refused(err)
}

// NotePullRequest records the pull request opened for a finished run's
// branch (pushed to remote) at url.
func (e *Engine) NotePullRequest(ctx context.Context, runID, remote, url string) error {
	return e.onBranch(ctx, runID, func(iso *isolation.State) (string, error) {
		return iso.NotePullRequest(remote, url, e.now()), nil
	})
}

// branchOf is the stored worktree state of a run with a branch of its own.
func (e *Engine) branchOf(ctx context.Context, runID string) (*isolation.State, error) {
	run, err := e.store.Run(ctx, runID)
	if errors.Is(err, store.ErrNotFound) {
		return nil, fmt.Errorf("run %s: %w", runID, ErrUnknownRun)
	}
	if err != nil {
		return nil, err
	}
	rs, err := runstore.StateOf(run)
	if err != nil {
		return nil, err
	}
	iso := rs.Worktree
	if iso == nil || iso.Run == nil {
		return nil, fmt.Errorf("run %s has no branch of its own: %w", runID, ErrBadRequest)
	}
	return iso, nil
}

// Remotes lists the remotes of a worktree run's repository.
func (e *Engine) Remotes(ctx context.Context, runID string) ([]worktree.Remote, error) {
	iso, err := e.branchOf(ctx, runID)
	if err != nil {
		return nil, err
	}
	return worktree.Remotes(ctx, iso.Run.Repo)
}

// Diff lists the files a worktree run changed with both their versions:
// the changes of task taskID, or with taskID "" those of the whole run
// branch.
func (e *Engine) Diff(ctx context.Context, runID, taskID string) ([]worktree.FileDiff, error) {
	iso, err := e.branchOf(ctx, runID)
	if err != nil {
		return nil, err
	}
	d, err := iso.Diff(ctx, taskID)
	return d, refused(err)
}

// TaskPatch returns the patch of one task's merged changes (git diff).
func (e *Engine) TaskPatch(ctx context.Context, runID, taskID string) (string, error) {
	iso, err := e.branchOf(ctx, runID)
	if err != nil {
		return "", err
	}
	p, err := iso.Patch(ctx, taskID)
	return p, refused(err)
}

// ChangedFile is where a file that a worktree run changed can be opened
// (isolation.State.ChangedFile).
func (e *Engine) ChangedFile(ctx context.Context, runID, path string) (string, error) {
	iso, err := e.branchOf(ctx, runID)
	if err != nil {
		return "", err
	}
	p, err := iso.ChangedFile(ctx, path)
	return p, refused(err)
}
