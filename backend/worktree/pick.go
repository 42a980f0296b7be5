package worktree

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Pick is one task whose changes a selective apply takes: Commit is the
// merge commit that brought them onto the run branch.
type Pick struct {
	Task   string
	Commit string
}

// PickConflictError is a selective apply whose task's changes do not apply
// without changes it left out; nothing was changed.
type PickConflictError struct {
	Task  string
	Files []string
}

func (e *PickConflictError) Error() string {
	return fmt.Sprintf("Apply stopped: the changes of %s do not apply without changes you left out (they touch %s); nothing was changed. Pick the tasks merged before it that changed these files too, or apply the whole run",
		e.Task, strings.Join(e.Files, ", "))
}

// ApplyBranch is the branch a selective apply builds its picks on.
func (r *Run) ApplyBranch() string { return "baton/" + r.ID + "-apply" }

// PickCommand is the git command that applies picks by hand: their merges
// replayed onto the user's branch, in order.
func (r *Run) PickCommand(picks []Pick) string {
	var commits []string
	for _, p := range picks {
		commits = append(commits, short(p.Commit))
	}
	return fmt.Sprintf("git -C %s cherry-pick -m 1 %s", shellQuote(r.Repo), strings.Join(commits, " "))
}

func short(commit string) string {
	if len(commit) > 12 {
		return commit[:12]
	}
	return commit
}

// Order sorts picks in the order their merges were made on the run branch
// (dependency order), and refuses a pick whose commit is not one of the run
// branch's merges.
func (r *Run) Order(ctx context.Context, picks []Pick) ([]Pick, error) {
	out, err := runGit(ctx, r.Repo, "rev-list", "--first-parent", "--reverse", r.Base+".."+r.Branch)
	if err != nil {
		return nil, err
	}
	merges := lines(out)
	sorted := slices.Clone(picks)
	for _, p := range sorted {
		if !slices.Contains(merges, p.Commit) {
			return nil, fmt.Errorf("the changes of %s (%s) are not on the branch %s", p.Task, short(p.Commit), r.Branch)
		}
	}
	slices.SortStableFunc(sorted, func(a, b Pick) int {
		return slices.Index(merges, a.Commit) - slices.Index(merges, b.Commit)
	})
	return sorted, nil
}

// ApplyTasks applies only the changes of picks to the user's current
// branch: it replays their merges (git cherry-pick -m 1), in the order they
// were merged, on a branch made from the commit the run started from, in a
// worktree of its own, and merges that branch into the user's branch as
// Apply does (a fast forward where possible). It refuses, changing
// nothing, when the user's uncommitted changes touch the same files
// (*DirtyOverlapError), when a task's changes need changes left out
// (*PickConflictError), or when merging into the user's branch conflicts
// (*ApplyConflictError). The run branch stays as it is.
func (r *Run) ApplyTasks(ctx context.Context, picks []Pick) (Applied, error) {
	if len(picks) == 0 {
		return Applied{}, errors.New("no task to apply")
	}
	picks, err := r.Order(ctx, picks)
	if err != nil {
		return Applied{}, err
	}
	branch, dir := r.ApplyBranch(), filepath.Join(r.Dir, "apply")
	if err := os.MkdirAll(r.Dir, 0o700); err != nil {
		return Applied{}, fmt.Errorf("make the run's worktree folder: %w", err)
	}
	defer func() {
		ctx := context.WithoutCancel(ctx)
		_ = r.removeWorktree(ctx, dir)
		_ = r.deleteBranch(ctx, branch)
		_ = os.Remove(r.Dir) // only when empty: the run's worktrees may be there
	}()
	if err := r.ensureWorktree(ctx, dir, branch, r.Base); err != nil {
		return Applied{}, err
	}
	for _, p := range picks {
		if _, err := runGit(ctx, dir, "-c", "commit.gpgsign=false", "cherry-pick", "-m", "1", "-x", "--allow-empty", "--no-rerere-autoupdate", p.Commit); err != nil {
			out, _ := runGit(ctx, dir, "diff", "--name-only", "-z", "--diff-filter=U")
			files := nulFields(out)
			_, _ = runGit(ctx, dir, "cherry-pick", "--abort")
			if len(files) > 0 {
				return Applied{}, &PickConflictError{Task: p.Task, Files: files}
			}
			return Applied{}, fmt.Errorf("replay the changes of %s: %w", p.Task, err)
		}
	}
	return r.mergeInto(ctx, branch, fmt.Sprintf("Apply tasks %s of Baton run %s", taskList(picks), r.ID))
}

func taskList(picks []Pick) string {
	var ids []string
	for _, p := range picks {
		ids = append(ids, p.Task)
	}
	return strings.Join(ids, ", ")
}
