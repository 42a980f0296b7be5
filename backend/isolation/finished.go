package isolation

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/baton-app/baton/backend/store"
	"github.com/baton-app/baton/backend/worktree"
)

// What can be done with a finished run's branch, each step a method of its
// stored state that does the git work, changes the state and says what
// happened (the engine stores both through its ledger): apply all or some
// of its tasks, discard it, push it, note its pull request; and what can be
// read of it: its diff, a task's patch, a changed file to open, its view.

// ErrRefused is a request about a run's branch that cannot be done as
// asked (no such task's changes, a file the run did not change, a branch
// that is gone); the error says why.
var ErrRefused = errors.New("bad request")

// ErrNoTask is a task the run's branch knows nothing of.
var ErrNoTask = errors.New("unknown task")

// Apply merges the run branch into the user's current branch (a fast
// forward where possible) and removes the branch. It refuses, changing
// nothing, when the user's uncommitted changes touch the same files.
func (s *State) Apply(ctx context.Context) (worktree.Applied, string, error) {
	var applied worktree.Applied
	err := s.End(ctx, "applied", func(wr *worktree.Run) error {
		var err error
		if applied, err = wr.Apply(ctx); err != nil {
			return err
		}
		return wr.Discard(ctx)
	})
	if err != nil {
		return applied, "", err
	}
	s.Applied = &applied
	how := "merged"
	switch {
	case applied.Nothing:
		how = "already held by"
	case applied.FastForward:
		how = "fast-forwarded into"
	}
	return applied, fmt.Sprintf("The changes of %s were %s your branch %s.", s.Run.Branch, how, applied.Into), nil
}

// Discard drops the run branch and worktrees; the user's branch stays as
// it is.
func (s *State) Discard(ctx context.Context) (string, error) {
	if err := s.End(ctx, "discarded", func(wr *worktree.Run) error { return wr.Discard(ctx) }); err != nil {
		return "", err
	}
	return fmt.Sprintf("The branch %s was discarded.", s.Run.Branch), nil
}

// ApplyTasks applies only the changes of tasks ids (their merges replayed
// from the commit the run started from, in the order they were merged). A
// task that depends on a task with changes left out is refused with a
// *LeftOutError. The run branch stays for the other tasks, until they are
// all applied.
func (s *State) ApplyTasks(ctx context.Context, tasks []store.Task, ids []string) (worktree.Applied, string, error) {
	var applied worktree.Applied
	picks, err := s.Picks(tasks, ids)
	if err != nil {
		return applied, "", fmt.Errorf("%w: %w", err, ErrRefused)
	}
	wr, err := worktree.Open(ctx, *s.Run)
	if err != nil {
		return applied, "", err
	}
	if applied, err = wr.ApplyTasks(ctx, picks); err != nil {
		return applied, "", err
	}
	var done []string
	for _, p := range picks {
		done = append(done, p.Task)
	}
	s.AppliedTasks = append(s.AppliedTasks, done...)
	msg := fmt.Sprintf("The changes of %s were applied to your branch %s.", strings.Join(done, ", "), applied.Into)
	if !s.AllApplied() {
		return applied, msg + fmt.Sprintf(" The branch %s keeps the other tasks' changes.", s.Run.Branch), nil
	}
	if err := s.End(ctx, "applied", func(wr *worktree.Run) error { return wr.Discard(ctx) }); err != nil {
		return applied, "", err
	}
	s.Applied = &applied
	return applied, msg + fmt.Sprintf(" Every task's changes are applied; the branch %s was removed.", s.Run.Branch), nil
}

// Push pushes the run branch to remote, one of the repository's remotes,
// with the user's own git setup; it returns what git said.
func (s *State) Push(ctx context.Context, remote string, now time.Time) (said, msg string, err error) {
	wr, err := worktree.Open(ctx, *s.Run)
	if err != nil {
		return "", "", err
	}
	if said, err = wr.Push(ctx, remote); err != nil {
		if errors.Is(err, worktree.ErrUnknownRemote) {
			return "", "", fmt.Errorf("%w: %w", err, ErrRefused)
		}
		return "", "", err
	}
	head, err := wr.Head(ctx)
	if err != nil {
		return "", "", err
	}
	s.Pushes = append(s.Pushes, Push{Remote: remote, Commit: head, At: now})
	return said, fmt.Sprintf("The branch %s was pushed to %s.", s.Run.Branch, remote), nil
}

// NotePullRequest records the pull request opened at url for the branch
// pushed to remote.
func (s *State) NotePullRequest(remote, url string, now time.Time) string {
	s.PullRequest = &PullRequest{URL: url, Remote: remote, At: now}
	return fmt.Sprintf("Pull request opened for %s: %s", s.Run.Branch, url)
}

// Diff lists the files the run changed with both their versions: the
// changes of task taskID, or with taskID "" those of the whole run branch.
func (s *State) Diff(ctx context.Context, taskID string) ([]worktree.FileDiff, error) {
	wr := *s.Run
	if taskID != "" {
		it := s.Tasks[taskID]
		switch {
		case it == nil:
			return nil, fmt.Errorf("task %s: %w", taskID, ErrNoTask)
		case it.Merged != nil:
			return wr.FileDiffs(ctx, it.Merged.Base, it.Merged.Tip)
		case s.Conflict != nil && s.Conflict.Task == taskID:
			return wr.FileDiffs(ctx, s.Conflict.Base, s.Conflict.Tip)
		}
		return []worktree.FileDiff{}, nil
	}
	if s.Outcome != "" {
		return nil, fmt.Errorf("the branch %s is %s; each task's changes are still listed: %w", wr.Branch, s.Outcome, ErrRefused)
	}
	head, err := wr.Head(ctx)
	if err != nil {
		return nil, err
	}
	return wr.FileDiffs(ctx, wr.Base, head)
}

// Patch returns the patch of one task's merged changes (git diff).
func (s *State) Patch(ctx context.Context, taskID string) (string, error) {
	it := s.Tasks[taskID]
	switch {
	case it == nil:
		return "", fmt.Errorf("task %s: %w", taskID, ErrNoTask)
	case it.Merged != nil:
		return s.Run.Patch(ctx, it.Merged.Base, it.Merged.Tip)
	case s.Conflict != nil && s.Conflict.Task == taskID:
		return s.Run.Patch(ctx, s.Conflict.Base, s.Conflict.Tip)
	}
	return "", nil
}

// ChangedFile is where a file that the run changed can be opened: in the
// run's worktree while it is there, in the user's folder once the branch
// was applied, otherwise a read-only copy of the branch's version in
// Baton's data folder. Only files one of the run's tasks changed are given;
// a file the run deleted has nothing to open.
func (s *State) ChangedFile(ctx context.Context, path string) (string, error) {
	wr := *s.Run
	changed := false
	for _, it := range s.Tasks {
		if it.Merged != nil && slices.ContainsFunc(it.Merged.Changes, func(c worktree.FileChange) bool { return c.Path == path }) {
			changed = true
		}
	}
	if !changed {
		return "", fmt.Errorf("%s is not a file this run changed: %w", path, ErrRefused)
	}
	rel := filepath.FromSlash(path)
	switch {
	case s.Outcome == "applied" || s.appliedFile(path):
		return filepath.Join(wr.Repo, rel), nil
	case s.Outcome != "":
		return "", fmt.Errorf("the branch %s is %s; there is no version of %s to open: %w", wr.Branch, s.Outcome, path, ErrRefused)
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
		return "", fmt.Errorf("the run deleted %s or it cannot be read: %v: %w", path, err, ErrRefused)
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
func (s *State) appliedFile(path string) bool {
	for _, id := range s.AppliedTasks {
		if it := s.Tasks[id]; it != nil && it.Merged != nil && slices.ContainsFunc(it.Merged.Changes, func(c worktree.FileChange) bool { return c.Path == path }) {
			return true
		}
	}
	return false
}

func fileExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir()
}

// View is a run's worktree isolation as a view shows it.
type View struct {
	Repo   string `json:"repo"`
	Branch string `json:"branch"`
	Base   string `json:"base"`
	// RunDir is the run's own worktree (gone once the run ended).
	RunDir string   `json:"runDir"`
	Dirty  []string `json:"dirty,omitempty"`
	// MergeCommand merges the run branch by hand; DiscardCommand drops it.
	MergeCommand   string         `json:"mergeCommand"`
	DiscardCommand string         `json:"discardCommand"`
	Tasks          []TaskChanges  `json:"tasks"`
	Conflict       *ConflictState `json:"conflict,omitempty"`
	// Outcome is "", "applied", "discarded" or "empty".
	Outcome string            `json:"outcome,omitempty"`
	Applied *worktree.Applied `json:"applied,omitempty"`
	Cleaned bool              `json:"cleaned"`
	// Pushes and PullRequest: where the branch went.
	Pushes      []Push       `json:"pushes,omitempty"`
	PullRequest *PullRequest `json:"pullRequest,omitempty"`
}

// TaskChanges are the files one task changed on the run branch.
type TaskChanges struct {
	TaskID  string                `json:"taskId"`
	Merged  bool                  `json:"merged"`
	Dropped bool                  `json:"dropped,omitempty"`
	Error   string                `json:"error,omitempty"`
	Changes []worktree.FileChange `json:"changes"`
	// Resolves names the task whose conflict this merge task resolved.
	Resolves string `json:"resolves,omitempty"`
	// Applied: its changes were applied to the user's branch on their own.
	Applied bool `json:"applied,omitempty"`
	// Commit is the merge that brought its changes onto the run branch.
	Commit string `json:"commit,omitempty"`
	// Machine is the machine its worker ran on ("" here).
	Machine string `json:"machine,omitempty"`
}

// ConflictState is the run's merge conflict.
type ConflictState struct {
	TaskID   string   `json:"taskId"`
	Files    []string `json:"files"`
	Resolver string   `json:"resolver"`
	// ByUser is true when the conflict waits for the user.
	ByUser bool `json:"byUser"`
}

// View is what a view shows of run runID's state s (finished: the run
// ended) with its tasks.
func (s *State) View(runID string, finished bool, tasks []store.Task) *View {
	if s.Run == nil {
		// Before the first worker: the branch it will make (none when the
		// run ended before).
		w := &View{Branch: worktree.RunBranch(runID), Dirty: s.Dirty, Tasks: []TaskChanges{}}
		if finished {
			w.Outcome, w.Cleaned = "empty", true
		}
		return w
	}
	w := &View{Repo: s.Run.Repo, Branch: s.Run.Branch, Base: s.Run.Base, RunDir: s.Run.RunDir(), Dirty: s.Run.Dirty,
		MergeCommand: s.Run.MergeCommand(), DiscardCommand: s.Run.DiscardCommand(), Outcome: s.Outcome, Applied: s.Applied, Cleaned: s.Cleaned, Tasks: []TaskChanges{},
		Pushes: s.Pushes, PullRequest: s.PullRequest}
	for _, t := range tasks {
		it := s.Tasks[t.ID]
		if it == nil {
			continue
		}
		tc := TaskChanges{TaskID: t.ID, Merged: it.Merged != nil, Dropped: it.Dropped, Error: it.Error, Resolves: it.Resolves, Changes: []worktree.FileChange{},
			Applied: slices.Contains(s.AppliedTasks, t.ID), Machine: it.Machine}
		if it.Merged != nil {
			tc.Changes, tc.Commit = it.Merged.Changes, it.Merged.Commit
		}
		w.Tasks = append(w.Tasks, tc)
	}
	if c := s.Conflict; c != nil {
		w.Conflict = &ConflictState{TaskID: c.Task, Files: c.Files, Resolver: c.Resolver, ByUser: c.Resolver == ResolverUser}
	}
	return w
}
