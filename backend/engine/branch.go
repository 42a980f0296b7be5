package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/baton-app/baton/backend/isolation"
	"github.com/baton-app/baton/backend/store"
	"github.com/baton-app/baton/backend/worktree"
)

// A finished run's branch, after Apply and Discard (isolation.go): some of
// its tasks applied, its push to a remote and its pull request, its diff,
// and a changed file to open. Every change goes through onBranch and its
// ledger.

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
	return e.newLedger(runID).commit(ctx, store.Change{Run: &run}, newEvent(EventWorktree, nil, msg))
}

// ApplyTasks applies only the changes of tasks taskIDs of a finished run to
// the user's current branch (their merges replayed from the commit the run
// started from, in the order they were merged). A task that depends on a
// task with changes left out is refused with an *isolation.LeftOutError.
// The run branch stays for the other tasks, until they are all applied.
// Without tasks it is Apply.
func (e *Engine) ApplyTasks(ctx context.Context, runID string, taskIDs []string) (worktree.Applied, error) {
	if len(taskIDs) == 0 {
		return e.Apply(ctx, runID)
	}
	tasks, err := e.store.Tasks(ctx, runID)
	if err != nil {
		return worktree.Applied{}, err
	}
	var applied worktree.Applied
	err = e.onBranch(ctx, runID, func(iso *isolation.State) (string, error) {
		picks, err := iso.Picks(tasks, taskIDs)
		if err != nil {
			return "", fmt.Errorf("%w: %w", err, ErrBadRequest)
		}
		wr, err := worktree.Open(ctx, *iso.Run)
		if err != nil {
			return "", err
		}
		if applied, err = wr.ApplyTasks(ctx, picks); err != nil {
			return "", err
		}
		var ids []string
		for _, p := range picks {
			ids = append(ids, p.Task)
		}
		iso.AppliedTasks = append(iso.AppliedTasks, ids...)
		msg := fmt.Sprintf("The changes of %s were applied to your branch %s.", strings.Join(ids, ", "), applied.Into)
		if !iso.AllApplied() {
			return msg + fmt.Sprintf(" The branch %s keeps the other tasks' changes.", iso.Run.Branch), nil
		}
		if err := iso.End(ctx, "applied", func(wr *worktree.Run) error { return wr.Discard(ctx) }); err != nil {
			return "", err
		}
		iso.Applied = &applied
		return msg + fmt.Sprintf(" Every task's changes are applied; the branch %s was removed.", iso.Run.Branch), nil
	})
	return applied, err
}

// Push pushes a finished run's branch to remote, one of the repository's
// remotes, with the user's own git setup, and returns what git said.
func (e *Engine) Push(ctx context.Context, runID, remote string) (string, error) {
	var said string
	err := e.onBranch(ctx, runID, func(iso *isolation.State) (string, error) {
		wr, err := worktree.Open(ctx, *iso.Run)
		if err != nil {
			return "", err
		}
		if said, err = wr.Push(ctx, remote); err != nil {
			if errors.Is(err, worktree.ErrUnknownRemote) {
				return "", fmt.Errorf("%w: %w", err, ErrBadRequest)
			}
			return "", err
		}
		head, err := wr.Head(ctx)
		if err != nil {
			return "", err
		}
		iso.Pushes = append(iso.Pushes, isolation.Push{Remote: remote, Commit: head, At: e.now()})
		return fmt.Sprintf("The branch %s was pushed to %s.", iso.Run.Branch, remote), nil
	})
	return said, err
}

// NotePullRequest records the pull request opened for a finished run's
// branch (pushed to remote) at url.
func (e *Engine) NotePullRequest(ctx context.Context, runID, remote, url string) error {
	return e.onBranch(ctx, runID, func(iso *isolation.State) (string, error) {
		iso.PullRequest = &isolation.PullRequest{URL: url, Remote: remote, At: e.now()}
		return fmt.Sprintf("Pull request opened for %s: %s", iso.Run.Branch, url), nil
	})
}

// branchOf is the git side of a run with worktrees and its stored state.
func (e *Engine) branchOf(ctx context.Context, runID string) (*worktree.Run, *isolation.State, error) {
	run, err := e.store.Run(ctx, runID)
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil, fmt.Errorf("run %s: %w", runID, ErrUnknownRun)
	}
	if err != nil {
		return nil, nil, err
	}
	iso, err := storedIso(run)
	if err != nil {
		return nil, nil, err
	}
	if iso == nil || iso.Run == nil {
		return nil, nil, fmt.Errorf("run %s has no branch of its own: %w", runID, ErrBadRequest)
	}
	wr := *iso.Run
	return &wr, iso, nil
}

// Remotes lists the remotes of a worktree run's repository.
func (e *Engine) Remotes(ctx context.Context, runID string) ([]worktree.Remote, error) {
	wr, _, err := e.branchOf(ctx, runID)
	if err != nil {
		return nil, err
	}
	return worktree.Remotes(ctx, wr.Repo)
}

// Diff lists the files a worktree run changed with both their versions:
// the changes of task taskID, or with taskID "" those of the whole run
// branch.
func (e *Engine) Diff(ctx context.Context, runID, taskID string) ([]worktree.FileDiff, error) {
	wr, iso, err := e.branchOf(ctx, runID)
	if err != nil {
		return nil, err
	}
	if taskID != "" {
		it := iso.Tasks[taskID]
		switch {
		case it == nil:
			return nil, fmt.Errorf("task %s of run %s: %w", taskID, runID, ErrUnknownTask)
		case it.Merged != nil:
			return wr.FileDiffs(ctx, it.Merged.Base, it.Merged.Tip)
		case iso.Conflict != nil && iso.Conflict.Task == taskID:
			return wr.FileDiffs(ctx, iso.Conflict.Base, iso.Conflict.Tip)
		}
		return []worktree.FileDiff{}, nil
	}
	if iso.Outcome != "" {
		return nil, fmt.Errorf("the branch %s is %s; each task's changes are still listed: %w", wr.Branch, iso.Outcome, ErrBadRequest)
	}
	head, err := wr.Head(ctx)
	if err != nil {
		return nil, err
	}
	return wr.FileDiffs(ctx, wr.Base, head)
}

// ChangedFile is where a file that a worktree run changed can be opened: in
// the run's worktree while it is there, in the user's folder once the
// branch was applied, otherwise a read-only copy of the branch's version
// in Baton's data folder. Only files one of the run's tasks changed are
// given; a file the run deleted has nothing to open.
func (e *Engine) ChangedFile(ctx context.Context, runID, path string) (string, error) {
	wr, iso, err := e.branchOf(ctx, runID)
	if err != nil {
		return "", err
	}
	changed := false
	for _, it := range iso.Tasks {
		if it.Merged != nil && slices.ContainsFunc(it.Merged.Changes, func(c worktree.FileChange) bool { return c.Path == path }) {
			changed = true
		}
	}
	if !changed {
		return "", fmt.Errorf("%s is not a file this run changed: %w", path, ErrBadRequest)
	}
	rel := filepath.FromSlash(path)
	switch {
	case iso.Outcome == "applied" || appliedFile(iso, path):
		return filepath.Join(wr.Repo, rel), nil
	case iso.Outcome != "":
		return "", fmt.Errorf("the branch %s is %s; there is no version of %s to open: %w", wr.Branch, iso.Outcome, path, ErrBadRequest)
	}
	if p := filepath.Join(wr.RunDir(), rel); fileExists(p) {
		return p, nil
	}
	head, err := wr.Head(ctx)
	if err != nil {
		return "", err
	}
	data, err := wr.Show(ctx, head, path)
	if err != nil {
		return "", fmt.Errorf("the run deleted %s or it cannot be read: %v: %w", path, err, ErrBadRequest)
	}
	copyPath := filepath.Join(wr.CopiesDir(), rel)
	if err := os.MkdirAll(filepath.Dir(copyPath), 0o700); err != nil {
		return "", err
	}
	_ = os.Chmod(copyPath, 0o600) // a copy from before is replaced
	if err := os.WriteFile(copyPath, data, 0o400); err != nil {
		return "", err
	}
	return copyPath, nil
}

// appliedFile reports whether a task whose changes were applied one by one
// changed path.
func appliedFile(iso *isolation.State, path string) bool {
	for _, id := range iso.AppliedTasks {
		if it := iso.Tasks[id]; it != nil && it.Merged != nil && slices.ContainsFunc(it.Merged.Changes, func(c worktree.FileChange) bool { return c.Path == path }) {
			return true
		}
	}
	return false
}

func fileExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir()
}
