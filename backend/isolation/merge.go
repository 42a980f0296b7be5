package isolation

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/baton-app/baton/backend/store"
	"github.com/baton-app/baton/backend/worktree"
)

// MergeKind is what became of a task's merge (Workspace.Merge).
type MergeKind int

// The ends of a task's merge.
const (
	// Merged: the task's changes are on the run branch.
	Merged MergeKind = iota
	// Dropped: git failed; the run goes on without the task's changes
	// (its branch stays until the run ends).
	Dropped
	// Conflicted: the merge stopped on conflicts in the run's worktree;
	// it is the run's Conflict now, for a merge task or the user.
	Conflicted
)

// Merge is what became of a task's merge.
type Merge struct {
	Kind MergeKind
	// Text says how much was merged, or why the changes were dropped.
	Text string
}

// Merge commits the changes of completed task id (titled title, reported
// with summary) where its worker did not, and merges them into the run
// branch in the run's worktree.
func (w *Workspace) Merge(ctx context.Context, id, title, summary string) Merge {
	it := w.Tasks[id]
	if it == nil {
		it = &Task{}
		w.Tasks[id] = it
	}
	msg := fmt.Sprintf("%s: %s", id, title)
	if summary != "" {
		msg += "\n\n" + clip(summary, 2000)
	}
	if it.Machine != "" {
		// The worker ran on a machine: its branch comes from there.
		if w.Bring == nil {
			return drop(it, fmt.Sprintf("%s ran on %s, and nothing brings its branch from there", id, it.Machine))
		}
		if err := w.Bring(ctx, id, msg); err != nil {
			return drop(it, fmt.Sprintf("bring the changes of %s from %s: %v", id, it.Machine, err))
		}
	} else if _, err := w.Run.Commit(ctx, id, msg); err != nil {
		return drop(it, fmt.Sprintf("commit the changes of %s: %v", id, err))
	}
	m, err := w.Run.Merge(ctx, id, fmt.Sprintf("Baton: merge %s (%s)", id, clip(title, 60)))
	var ce *worktree.ConflictError
	if errors.As(err, &ce) {
		w.Conflict = &Conflict{Task: id, Files: ce.Files, Base: m.Base, Tip: m.Tip, Changes: m.Changes}
		return Merge{Kind: Conflicted}
	}
	if err != nil {
		return drop(it, fmt.Sprintf("merge %s into %s: %v", id, w.Run.Branch, err))
	}
	it.Merged = &m
	if err := w.Run.RemoveTask(ctx, id); err != nil {
		w.log.Warn("remove a merged task's worktree", "task", id, "err", err)
	}
	it.Dir = ""
	return Merge{Kind: Merged, Text: mergedText(w.Run.Branch, m.Changes)}
}

func drop(it *Task, reason string) Merge {
	it.Error = reason
	it.Dropped = true
	return Merge{Kind: Dropped, Text: reason}
}

func mergedText(branch string, changes []worktree.FileChange) string {
	if len(changes) == 0 {
		return "no changes to merge"
	}
	add, del := 0, 0
	for _, c := range changes {
		add += max(c.Added, 0)
		del += max(c.Removed, 0)
	}
	files := "files"
	if len(changes) == 1 {
		files = "file"
	}
	return fmt.Sprintf("merged into %s: %d %s, +%d −%d", branch, len(changes), files, add, del)
}

// Ready reports whether a task with dependencies deps may start: only once
// the changes of those that completed (completed says which) are on the
// run branch.
func (w *Workspace) Ready(deps []string, completed func(id string) bool) bool {
	for _, d := range deps {
		if completed(d) && !w.Merged(d) {
			return false
		}
	}
	return true
}

// Settled reports whether every completed one of tasks is merged and no
// conflict waits: only then may the run aggregate.
func (w *Workspace) Settled(tasks []store.Task, completed func(id string) bool) bool {
	if w.Conflict != nil {
		return false
	}
	for _, t := range tasks {
		if completed(t.ID) && !w.Merged(t.ID) {
			return false
		}
	}
	return true
}

// Next is the first of tasks, in their order, that completed and is not
// merged while its dependencies are ("" none): merges go in dependency
// order.
func (w *Workspace) Next(tasks []store.Task, completed func(id string) bool) string {
	for _, t := range tasks {
		if completed(t.ID) && !w.Merged(t.ID) && w.Ready(t.Dependencies, completed) {
			return t.ID
		}
	}
	return ""
}

// MergeTask is the task of run runID that resolves the run's conflict: the
// conflicting files, and the reports of the conflicting task and of the
// tasks merged before that changed them, from their workers (by task id).
// Its id is one that none of tasks has.
func (w *Workspace) MergeTask(runID string, tasks []store.Task, workers map[string]store.Worker) store.Task {
	c := w.Conflict
	byID := map[string]store.Task{}
	for _, t := range tasks {
		byID[t.ID] = t
	}
	id := "merge-" + c.Task
	for n := 2; ; n++ {
		if _, taken := byID[id]; !taken {
			break
		}
		id = fmt.Sprintf("merge-%s-%d", c.Task, n)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Git stopped merging task %s into the run branch %s because it and tasks merged before changed the same lines. "+
		"The merge is in progress in this folder, the run's own git worktree (%s). Resolve the conflicts in %s: edit each file so it keeps "+
		"what both sides meant, and remove every conflict marker (<<<<<<<, =======, >>>>>>>). Do not commit and do not abort the merge: "+
		"Baton commits it when you report success. Change nothing else.\n",
		c.Task, w.Run.Branch, w.RunCwd(), strings.Join(c.Files, ", "))
	report := func(id string) {
		wk := workers[id]
		fmt.Fprintf(&b, "\nReport of %s (%s): %s\n", id, byID[id].Title, clip(wk.Summary, 1500))
		if wk.Output != "" {
			fmt.Fprintf(&b, "%s\n", clip(wk.Output, 1500))
		}
	}
	report(c.Task)
	for _, t := range tasks {
		if _, ok := workers[t.ID]; ok && w.touched(t.ID) {
			report(t.ID)
		}
	}
	return store.Task{RunID: runID, ID: id, Title: "Resolve the merge conflict of " + c.Task, Description: b.String(),
		Scope: c.Files, Priority: 10, Complexity: byID[c.Task].Complexity, Dependencies: []string{}, Position: len(tasks)}
}

// touched reports whether task id, merged before the conflict, changed one
// of the conflicting files.
func (w *Workspace) touched(id string) bool {
	it := w.Tasks[id]
	if it == nil || it.Merged == nil || id == w.Conflict.Task {
		return false
	}
	for _, ch := range it.Merged.Changes {
		if slices.Contains(w.Conflict.Files, ch.Path) {
			return true
		}
	}
	return false
}

// Resolving makes task resolver the merge task of the run's conflict and
// returns what the run says about it.
func (w *Workspace) Resolving(resolver string) string {
	c := w.Conflict
	c.Resolver = resolver
	w.Tasks[resolver] = &Task{Resolves: c.Task}
	return fmt.Sprintf("Merging %s into %s conflicts in %s; the merge task %s resolves it in the run's worktree %s.",
		c.Task, w.Run.Branch, strings.Join(c.Files, ", "), resolver, w.Run.RunDir())
}

// FinishConflict commits the conflict's merge once its files are resolved
// in the run's worktree (a *worktree.UnresolvedError while markers are
// left).
func (w *Workspace) FinishConflict(ctx context.Context) error {
	return w.Run.FinishMerge(ctx, w.Conflict.Files)
}

// LeaveToUser hands the run's conflict to the user (why: what the merge
// task did not do) and returns what the run says.
func (w *Workspace) LeaveToUser(why string) string {
	c := w.Conflict
	c.Resolver = ResolverUser
	return fmt.Sprintf("The merge conflict of %s in %s needs you (%s): resolve the files in %s and choose Resolved, or drop the task's changes.",
		c.Task, strings.Join(c.Files, ", "), why, w.Run.RunDir())
}

// Resolved records the finished merge of the conflicting task, resolved as
// how says, and returns the task and what to tell about its merge.
func (w *Workspace) Resolved(ctx context.Context, how string) (task, text string, err error) {
	c := w.Conflict
	head, err := w.Run.Head(ctx)
	if err != nil {
		return "", "", err
	}
	it := w.Tasks[c.Task]
	if it == nil {
		it = &Task{}
		w.Tasks[c.Task] = it
	}
	it.Merged = &worktree.Merged{Base: c.Base, Tip: c.Tip, Commit: head, Changes: c.Changes}
	w.Conflict = nil
	if err := w.Run.RemoveTask(ctx, c.Task); err != nil {
		w.log.Warn("remove a merged task's worktree", "task", c.Task, "err", err)
	}
	it.Dir = ""
	return c.Task, mergedText(w.Run.Branch, c.Changes) + " (" + how + ")", nil
}

// DropConflict aborts the conflict's merge, leaving the task's changes out
// of the run branch, and returns the task and what to tell about it.
func (w *Workspace) DropConflict(ctx context.Context) (task, text string, err error) {
	c := w.Conflict
	if err := w.Run.AbortMerge(ctx); err != nil {
		return "", "", err
	}
	if it := w.Tasks[c.Task]; it != nil {
		it.Dropped = true
		it.Error = "its merge conflicted and you left its changes out"
	}
	w.Conflict = nil
	return c.Task, fmt.Sprintf("the changes of %s were left out of %s", c.Task, w.Run.Branch), nil
}

// Finish removes the run's worktrees when it ends (completed, failed or
// cancelled); the run branch stays for Apply or Discard, unless nothing
// changed. It returns what the run's message adds ("" nothing).
func (w *Workspace) Finish(ctx context.Context) string {
	if w.Run == nil || w.Cleaned {
		return ""
	}
	ctx = context.WithoutCancel(ctx)
	wr, err := worktree.Open(ctx, *w.Run)
	if err == nil {
		err = wr.Cleanup(ctx)
	}
	if err != nil {
		w.log.Warn("remove the run's worktrees", "err", err)
		return ""
	}
	w.Cleaned = true
	w.Conflict = nil
	head, err := wr.Head(ctx)
	if err == nil && head == wr.Base {
		if err := wr.Discard(ctx); err == nil {
			w.Outcome = "empty"
		}
		return ""
	}
	return branchNote(wr)
}

// branchNote is what a run's message says of its branch until it is
// applied or discarded.
func branchNote(r *worktree.Run) string {
	return fmt.Sprintf("The changes are on the branch %s: Apply merges them into your branch (or run %s), Discard drops them.", r.Branch, r.MergeCommand())
}

// Ended is msg, a finished run's message, with what it said of the branch
// until now replaced by note (the branch was applied or discarded), so it
// no longer offers Apply.
func (s *State) Ended(msg, note string) string {
	if s.Run != nil {
		if pending := branchNote(s.Run); strings.Contains(msg, pending) {
			return strings.Replace(msg, pending, note, 1)
		}
	}
	return strings.TrimSpace(msg + "\n" + note)
}

// End ends a finished run's branch as outcome ("applied", "discarded") once
// do did the git work on it.
func (s *State) End(ctx context.Context, outcome string, do func(*worktree.Run) error) error {
	wr, err := worktree.Open(ctx, *s.Run)
	if err != nil {
		return err
	}
	if err := do(wr); err != nil {
		return err
	}
	s.Outcome, s.Cleaned = outcome, true
	return nil
}

// clip shortens s to at most n characters, ending it with "...".
func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-3]) + "..."
}
