package view

import (
	"slices"
	"time"

	"github.com/baton-app/baton/backend/engine"
	"github.com/baton-app/baton/backend/isolation"
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
	// MergeCommand merges the run branch by hand; DiscardCommand drops it.
	MergeCommand   string         `json:"mergeCommand"`
	DiscardCommand string         `json:"discardCommand"`
	Tasks          []TaskChanges  `json:"tasks"`
	Conflict       *ConflictState `json:"conflict,omitempty"`
	// Outcome is "", "applied", "discarded" or "empty".
	Outcome string   `json:"outcome,omitempty"`
	Applied *Applied `json:"applied,omitempty"`
	Cleaned bool     `json:"cleaned"`
	// Pushes are the pushes of the branch to a remote, oldest first.
	Pushes []Push `json:"pushes,omitempty"`
	// PullRequest is the pull request opened for the branch.
	PullRequest *PullRequest `json:"pullRequest,omitempty"`
}

// Push is one push of a run branch.
type Push struct {
	Remote string    `json:"remote"`
	Commit string    `json:"commit"`
	At     time.Time `json:"at"`
}

// PullRequest is a pull request opened for a run branch.
type PullRequest struct {
	URL    string    `json:"url"`
	Remote string    `json:"remote"`
	At     time.Time `json:"at"`
}

// Remote is one remote of a run's repository.
type Remote struct {
	Name string `json:"name"`
	URL  string `json:"url"`
}

// Remotes are where a run branch can go: the repository's remotes, the
// one to offer first, and whether gh can open a pull request.
type Remotes struct {
	Remotes []Remote `json:"remotes"`
	// Default is the remote to offer first: the one pushed to last, else
	// origin, else the first.
	Default string `json:"default"`
	// PushCommand pushes the branch to Default by hand.
	PushCommand string `json:"pushCommand"`
}

// Pushed says what a push did.
type Pushed struct {
	Remote string `json:"remote"`
	// Output is what git said.
	Output string `json:"output"`
}

// PullRequestResult says what Open pull request did: the pull request
// opened with gh, or, without gh (or without its login), the command that
// opens it and what it says.
type PullRequestResult struct {
	// Opened is true when gh opened it; URL is then its address.
	Opened bool   `json:"opened"`
	URL    string `json:"url,omitempty"`
	// Why gh did not open it ("" when it did).
	Reason string `json:"reason,omitempty"`
	// Command opens it by hand (after the push it names).
	Command  string `json:"command"`
	Title    string `json:"title"`
	Body     string `json:"body"`
	BodyFile string `json:"bodyFile,omitempty"`
}

// FileDiff is one changed file with both its versions, for the diff view.
type FileDiff struct {
	Path string `json:"path"`
	// Status is "added", "deleted" or "modified".
	Status   string `json:"status"`
	Added    int    `json:"added"`
	Removed  int    `json:"removed"`
	Binary   bool   `json:"binary,omitempty"`
	TooLarge bool   `json:"tooLarge,omitempty"`
	Old      string `json:"old"`
	New      string `json:"new"`
}

// FileDiffsOf is the view of a diff.
func FileDiffsOf(ds []worktree.FileDiff) []FileDiff {
	return mapAll(ds, func(d worktree.FileDiff) FileDiff { return FileDiff(d) })
}

// RemotesOf is the view of a repository's remotes.
func RemotesOf(rs []worktree.Remote) []Remote {
	return mapAll(rs, func(r worktree.Remote) Remote { return Remote(r) })
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
	// Applied: its changes were applied to the user's branch on their own.
	Applied bool `json:"applied,omitempty"`
	// Commit is the merge that brought its changes onto the run branch.
	Commit string `json:"commit,omitempty"`
	// Machine is the machine of "baton machines" its worker ran on ("":
	// this one).
	Machine string `json:"machine,omitempty"`
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
		Repo: w.Repo, Branch: w.Branch, Base: w.Base, RunDir: w.RunDir, Dirty: w.Dirty, MergeCommand: w.MergeCommand, DiscardCommand: w.DiscardCommand,
		Tasks: mapAll(w.Tasks, func(t engine.TaskChanges) TaskChanges {
			return TaskChanges{TaskID: t.TaskID, Merged: t.Merged, Dropped: t.Dropped, Error: t.Error, Resolves: t.Resolves, Applied: t.Applied, Commit: t.Commit, Machine: t.Machine,
				Changes: mapAll(t.Changes, func(c worktree.FileChange) FileChange { return FileChange(c) })}
		}),
		Outcome: w.Outcome, Cleaned: w.Cleaned,
		Pushes: mapAll(w.Pushes, func(p isolation.Push) Push { return Push(p) }),
	}
	if w.PullRequest != nil {
		pr := PullRequest(*w.PullRequest)
		v.PullRequest = &pr
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

// PickCommand is the git command that applies the changes of tasks to the
// user's branch by hand, in the run's order of tasks.
func (w *Worktree) PickCommand(tasks []string) string {
	var picks []worktree.Pick
	for _, t := range w.Tasks {
		if slices.Contains(tasks, t.TaskID) && t.Commit != "" {
			picks = append(picks, worktree.Pick{Task: t.TaskID, Commit: t.Commit})
		}
	}
	return (&worktree.Run{Repo: w.Repo}).PickCommand(picks)
}
