package view

import (
	"github.com/baton-app/baton/backend/engine"
	"github.com/baton-app/baton/backend/worktree"
)

// Worktree is a run's worktree isolation: its branch, each task's changed
// files, the merge conflict that waits, and what became of the branch.
type Worktree struct {
	Repo   string `json:"repo"`
	Branch string `json:"branch"`
	Base   string `json:"base"`
	// RunDir is the run's own worktree (gone once the run ended).
	RunDir string   `json:"runDir"`
	Dirty  []string `json:"dirty,omitempty"`
	// MergeCommand merges the run branch by hand.
	MergeCommand string         `json:"mergeCommand"`
	Tasks        []TaskChanges  `json:"tasks"`
	Conflict     *ConflictState `json:"conflict,omitempty"`
	// Outcome is "", "applied", "discarded" or "empty".
	Outcome string   `json:"outcome,omitempty"`
	Applied *Applied `json:"applied,omitempty"`
	Cleaned bool     `json:"cleaned"`
}

// TaskChanges are the files one task changed on the run branch.
type TaskChanges struct {
	TaskID  string       `json:"taskId"`
	Merged  bool         `json:"merged"`
	Dropped bool         `json:"dropped,omitempty"`
	Error   string       `json:"error,omitempty"`
	Changes []FileChange `json:"changes"`
	// Resolves names the task whose conflict this merge task resolved.
	Resolves string `json:"resolves,omitempty"`
}

// FileChange is one file a task changed, with its added and removed lines
// (both -1 for a binary file).
type FileChange struct {
	Path    string `json:"path"`
	Added   int    `json:"added"`
	Removed int    `json:"removed"`
}

// ConflictState is the run's merge conflict.
type ConflictState struct {
	TaskID   string   `json:"taskId"`
	Files    []string `json:"files"`
	Resolver string   `json:"resolver"`
	// ByUser is true when the conflict waits for the user.
	ByUser bool `json:"byUser"`
}

// Applied says what Apply did to the user's branch.
type Applied struct {
	// Into is the user's branch the run was merged into ("HEAD" when it
	// was detached).
	Into string `json:"into"`
	// FastForward is true when the user's branch only moved forward.
	FastForward bool `json:"fastForward"`
	// Nothing is true when the user's branch already held the changes.
	Nothing bool   `json:"nothing,omitempty"`
	Commit  string `json:"commit"`
}

// AppliedOf is the view of what Apply did.
func AppliedOf(a worktree.Applied) Applied { return Applied(a) }

// WorktreeOf is the view of a run's worktree isolation (nil: the workers
// shared the folder).
func WorktreeOf(w *engine.Worktree) *Worktree {
	if w == nil {
		return nil
	}
	v := &Worktree{
		Repo: w.Repo, Branch: w.Branch, Base: w.Base, RunDir: w.RunDir, Dirty: w.Dirty, MergeCommand: w.MergeCommand,
		Tasks: mapAll(w.Tasks, func(t engine.TaskChanges) TaskChanges {
			return TaskChanges{TaskID: t.TaskID, Merged: t.Merged, Dropped: t.Dropped, Error: t.Error, Resolves: t.Resolves,
				Changes: mapAll(t.Changes, func(c worktree.FileChange) FileChange { return FileChange(c) })}
		}),
		Outcome: w.Outcome, Cleaned: w.Cleaned,
	}
	if w.Conflict != nil {
		c := ConflictState(*w.Conflict)
		v.Conflict = &c
	}
	if w.Applied != nil {
		a := AppliedOf(*w.Applied)
		v.Applied = &a
	}
	return v
}
