// Package isolation is a run's worktree isolation (template
// config.isolation "worktree"): each worker runs in its own git worktree on
// its own branch, made from the run branch baton/<run> when the worker
// starts; when a task completes, its changes are committed (by Baton when
// the worker did not) and merged into the run branch with git merge --no-ff
// in the run's own worktree, in dependency order. A task starts only once
// its dependencies are merged. A merge that conflicts becomes the run's
// conflict: a merge task resolves it in the run's worktree, and when that
// fails the user does. Aggregation and verification look at the run's
// worktree. When the run ends, every worktree is removed; the run branch
// stays until Apply or Discard.
//
// A Workspace keeps that state (State, stored with the run) and does the
// git work through backend/worktree; its methods say what happened, and
// the engine turns that into stored changes and events.
package isolation

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/baton-app/baton/backend/worktree"
)

// State is a run's worktree state, stored with the run.
type State struct {
	Run      *worktree.Run    `json:"run,omitempty"`
	Tasks    map[string]*Task `json:"tasks,omitempty"`
	Conflict *Conflict        `json:"conflict,omitempty"`
	// Cleaned: the worktrees were removed when the run ended.
	Cleaned bool `json:"cleaned,omitempty"`
	// Outcome is "applied", "discarded" or "empty" (nothing changed) once
	// the run branch is gone.
	Outcome string `json:"outcome,omitempty"`
	// Applied says how Apply merged the run branch.
	Applied *worktree.Applied `json:"applied,omitempty"`
	// AppliedTasks are the tasks whose changes were applied one by one
	// (ApplyTasks), in the order they were applied.
	AppliedTasks []string `json:"appliedTasks,omitempty"`
	// Pushes are the pushes of the run branch, oldest first.
	Pushes []Push `json:"pushes,omitempty"`
	// PullRequest is the pull request opened for the run branch.
	PullRequest *PullRequest `json:"pullRequest,omitempty"`
	// Dirty lists the user's uncommitted changes when the run was created.
	Dirty []string `json:"dirty,omitempty"`
}

// Task is one task's worktree and, once merged, its changes.
type Task struct {
	Branch string `json:"branch,omitempty"`
	// Dir is the task's worktree (on its Machine when it has one).
	Dir    string           `json:"dir,omitempty"`
	Base   string           `json:"base,omitempty"`
	Merged *worktree.Merged `json:"merged,omitempty"`
	// Resolves names the task whose conflict this merge task resolves.
	Resolves string `json:"resolves,omitempty"`
	// Dropped: the user gave up the task's conflicting merge.
	Dropped bool   `json:"dropped,omitempty"`
	Error   string `json:"error,omitempty"`
	// Machine is the machine the task's worker ran on (backend/machines);
	// empty: here. Its branch is brought here (Workspace.Bring) to merge.
	Machine string `json:"machine,omitempty"`
}

// Conflict is a merge stopped on conflicts in the run's worktree.
type Conflict struct {
	Task  string   `json:"task"`
	Files []string `json:"files"`
	Base  string   `json:"base"`
	Tip   string   `json:"tip"`
	// Resolver is the merge task that resolves it, or ResolverUser.
	Resolver string                `json:"resolver"`
	Changes  []worktree.FileChange `json:"changes,omitempty"`
}

// ResolverUser is the Conflict.Resolver of a conflict left to the user.
const ResolverUser = "user"

// Merged reports whether task id's changes are on the run branch, or need
// not be (a merge task, a task whose changes were dropped, one without a
// worktree).
func (s *State) Merged(id string) bool {
	it := s.Tasks[id]
	return it == nil || it.Merged != nil || it.Resolves != "" || it.Dropped
}

// Workspace is the worktree isolation of one run in folder cwd, its
// worktrees under root.
type Workspace struct {
	*State
	cwd, root, runID string
	log              *slog.Logger
	opened           bool // the worktrees were checked in this process
	// Bring fetches the branch of a task that ran on a machine
	// (Task.Machine) into the repository, before Merge merges it.
	Bring func(ctx context.Context, id, message string) error
}

// New returns the workspace of run runID in folder cwd with its stored
// state st (nil for a new run), its worktrees under root.
func New(st *State, cwd, root, runID string, log *slog.Logger) *Workspace {
	if st == nil {
		st = &State{}
	}
	return &Workspace{State: st, cwd: cwd, root: root, runID: runID, log: log}
}

// DirtyNote tells the user that their uncommitted changes are not part of
// the run.
func DirtyNote(dirty []string) string {
	return fmt.Sprintf("Your uncommitted changes (%s) are not part of this run: it starts from your last commit without them and never touches them. ",
		clip(strings.Join(dirty, ", "), 300))
}

// Created notes, on a new run, the uncommitted changes it leaves out, and
// returns the run's message about them ("" none).
func (w *Workspace) Created(dirty []string) string {
	w.Dirty = dirty
	if len(dirty) == 0 {
		return ""
	}
	return strings.TrimSpace(DirtyNote(dirty))
}

// Started reports whether the run branch exists (the first worker made it).
func (w *Workspace) Started() bool { return w.Run != nil }

// Open makes the run's branch and worktree the first time a worker needs
// them, or checks them again after a restart. When it made them, it
// returns what to tell the user.
func (w *Workspace) Open(ctx context.Context) (note string, err error) {
	if w.opened {
		return "", nil
	}
	if w.Tasks == nil {
		w.Tasks = map[string]*Task{}
	}
	if w.Run == nil {
		wr, err := worktree.Start(ctx, w.cwd, w.root, w.runID)
		if err != nil {
			return "", err
		}
		w.Run = wr
		w.opened = true
		note := fmt.Sprintf("The workers work on the branch %s in their own git worktrees; your branch changes only when you choose Apply.", wr.Branch)
		if len(wr.Dirty) > 0 {
			note = DirtyNote(wr.Dirty) + note
		}
		return note, nil
	}
	wr, err := worktree.Open(ctx, *w.Run)
	if err != nil {
		return "", err
	}
	if err := wr.Resume(ctx); err != nil {
		return "", err
	}
	w.Run = wr
	w.opened = true
	return "", nil
}

// sub is the folder inside worktree dir that stands for the run's folder
// (the run may work in a subfolder of its repository).
func (w *Workspace) sub(dir string) string { return subfolder(w.Run.Repo, w.cwd, dir) }

// RunCwd is the folder that stands for the run's folder in the run's own
// worktree, where the merged changes are ("" before the first worker).
func (w *Workspace) RunCwd() string {
	if w.Run == nil {
		return ""
	}
	return w.sub(w.Run.RunDir())
}

// TaskCwd is where the worker of task id runs, in an open workspace: its
// own worktree, made from the run branch as it is now, or for a merge task
// the run's worktree. With mailbox the run's file mailbox is linked into a
// new worktree: the worker finds its assignment and writes its report there
// (never committed).
func (w *Workspace) TaskCwd(ctx context.Context, id string, mailbox bool) (string, error) {
	if it := w.Tasks[id]; it != nil && it.Resolves != "" {
		return w.RunCwd(), nil
	}
	wt, err := w.Run.StartTask(ctx, id)
	if err != nil {
		return "", err
	}
	w.Tasks[id] = &Task{Branch: wt.Branch, Dir: wt.Dir, Base: wt.Base}
	cwd := w.sub(wt.Dir)
	if mailbox {
		link := filepath.Join(cwd, worktree.BatonDir)
		if _, err := os.Lstat(link); errors.Is(err, os.ErrNotExist) {
			if err := os.MkdirAll(cwd, 0o755); err != nil {
				return "", err
			}
			if err := os.Symlink(filepath.Join(w.cwd, worktree.BatonDir), link); err != nil {
				return "", fmt.Errorf("link the run's mailbox into the worktree: %w", err)
			}
		}
	}
	return cwd, nil
}

// TaskDir is the folder the prompt of task id names ("" the run's).
func (w *Workspace) TaskDir(id string) string {
	if w.Run == nil {
		return ""
	}
	it := w.Tasks[id]
	switch {
	case it == nil:
		return ""
	case it.Resolves != "":
		return w.RunCwd()
	case it.Dir != "":
		return w.sub(it.Dir)
	}
	return ""
}

// ResultHolds says which files (relative to the run's folder cwd) the
// run's result holds: the folder's files in a shared run (w nil); in a
// worktree run the files its branch wrote, none once the branch is gone.
// Nil when it cannot be told.
func (w *Workspace) ResultHolds(ctx context.Context, cwd string, log *slog.Logger) func(string) bool {
	if w == nil {
		return func(p string) bool {
			_, err := os.Stat(filepath.Join(cwd, filepath.FromSlash(p)))
			return err == nil
		}
	}
	if w.Run == nil {
		return func(string) bool { return false } // no worker ever started: no branch
	}
	result, err := w.Run.Result(context.WithoutCancel(ctx))
	if err != nil {
		log.Warn("read the run branch's files", "err", err)
		return nil
	}
	prefix := ""
	if ev, err := filepath.EvalSymlinks(cwd); err == nil {
		cwd = ev
	}
	if rel, err := filepath.Rel(w.Run.Repo, cwd); err == nil && rel != "." && !strings.HasPrefix(rel, "..") {
		prefix = filepath.ToSlash(rel) + "/"
	}
	return func(p string) bool { return result[prefix+p] }
}
