package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/baton-app/baton/backend/isolation"
	"github.com/baton-app/baton/backend/store"
	"github.com/baton-app/baton/backend/template"
	"github.com/baton-app/baton/backend/worktree"
)

// Worktree isolation (template config.isolation "worktree") is
// backend/isolation: each worker in its own git worktree from the run
// branch baton/<run>, merged back in dependency order after it completes, a
// conflict resolved by a merge task or the user, cleanup when the run ends,
// Apply and Discard. Here is how the run uses it: a worker's folder
// (spawn), the merges (runner.mergeWork, a step), the readiness of tasks
// and of aggregation, the end of the run (runner.apply), and the views and
// commands of the Engine.

// Events of worktree isolation.
const (
	// EventWorkerMerged: a task's changes were merged into the run branch
	// (the message says how much).
	EventWorkerMerged = "worker:merged"
	// EventMergeConflict: merging a task conflicts; Payload.Tasks holds the
	// merge task, or none when the user is asked.
	EventMergeConflict = "orchestrator:mergeConflict"
	// EventWorktree: a note about the run's branch (uncommitted changes
	// left out, applied, discarded).
	EventWorktree = "orchestrator:worktree"
)

// isolated reports whether runs of tmpl get worktrees from this engine.
func (e *Engine) isolated(tmpl template.Template) bool {
	return e.worktreeRoot != "" && tmpl.Config.Worktree()
}

// checkIsolation refuses to create a worktree run in a folder that cannot
// have one, with the sentence that says what to do. It returns the user's
// uncommitted changes, which are not part of the run.
func (e *Engine) checkIsolation(ctx context.Context, cwd string, tmpl template.Template) ([]string, error) {
	if !e.isolated(tmpl) {
		return nil, nil
	}
	if _, err := worktree.CheckVersion(ctx); err != nil {
		return nil, fmt.Errorf("%w: %w", err, ErrBadRequest)
	}
	repo, err := worktree.RepoRoot(ctx, cwd)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", err, ErrBadRequest)
	}
	dirty, err := worktree.DirtyFiles(ctx, repo)
	if err != nil {
		return nil, fmt.Errorf("read the state of %s: %w", repo, err)
	}
	return dirty, nil
}

// openWorkspace makes (or checks again) the run's branch and worktree;
// making them is told to the user.
func (r *runner) openWorkspace(ctx context.Context) error {
	note, err := r.iso.Open(ctx)
	if err != nil || note == "" {
		return err
	}
	return r.apply(ctx, change{}.with(nil, newEvent(EventWorktree, nil, note)))
}

// mergeWork merges the completed tasks into the run branch, each after the
// tasks it depends on, and follows a conflict's resolution.
func (r *runner) mergeWork(ctx context.Context) error {
	if r.iso == nil || !r.iso.Started() || r.status.Finished() {
		return nil
	}
	if err := r.openWorkspace(ctx); err != nil {
		// Without its worktree nothing can be merged: the run cannot go on.
		return r.fail(ctx, "the run's git worktree cannot be opened: "+err.Error())
	}
	for {
		if r.iso.Conflict != nil {
			ch, err := followConflict(ctx, r.iso, &r.plan)
			if err == nil && ch != nil {
				err = r.apply(ctx, *ch)
			}
			if err != nil || r.iso.Conflict != nil {
				return err
			}
		}
		id := r.iso.Next(r.plan.tasks, r.plan.completed)
		if id == "" {
			return nil
		}
		if err := r.apply(ctx, mergeOne(ctx, r.iso, &r.plan, r.plan.workers[id], r.run.ID)); err != nil {
			return err
		}
	}
}

// mergeOne merges the changes of ws's completed task into the run branch.
// A conflict becomes the run's: a merge task resolves it in the run's
// worktree. A git failure leaves the task's changes out (its branch stays
// until the run ends).
func mergeOne(ctx context.Context, iso *isolation.Workspace, plan *taskPlan, ws *workerState, runID string) change {
	id := ws.w.TaskID
	title := id
	if t := plan.task(id); t != nil {
		title = t.Title
	}
	m := iso.Merge(ctx, id, title, ws.w.Summary)
	switch m.Kind {
	case isolation.Dropped:
		msg := "Its changes are not on the run branch: " + m.Text
		return ws.event(EventWorkerMerged, msg).say(msg)
	case isolation.Conflicted:
		mt := iso.MergeTask(runID, plan.tasks, plan.rows())
		msg := iso.Resolving(mt.ID)
		added := plan.add(runID, []store.Task{mt})
		ev := newEvent(EventMergeConflict, ws, msg)
		ev.p.Tasks = []store.Task{mt}
		c := change{}.with(append([]*workerState{ws}, added...), ev).say(msg)
		c.Tasks = []store.Task{mt}
		return c
	}
	return ws.event(EventWorkerMerged, m.Text)
}

// followConflict finishes the merge of the run's conflict once its merge
// task completed, or hands the conflict to the user when the merge task
// failed or left markers. It returns the change to apply (nil: none yet).
func followConflict(ctx context.Context, iso *isolation.Workspace, plan *taskPlan) (*change, error) {
	c := iso.Conflict
	if c.Resolver == isolation.ResolverUser {
		return nil, nil
	}
	toUser := func(why string) (*change, error) {
		msg := iso.LeaveToUser(why)
		ch := change{}.with(nil, newEvent(EventMergeConflict, nil, msg)).say(msg)
		return &ch, nil
	}
	rw := plan.workers[c.Resolver]
	switch {
	case rw == nil:
		return toUser("its merge task is gone")
	case rw.status == WorkerCompleted:
		if err := iso.FinishConflict(ctx); err != nil {
			return toUser(err.Error())
		}
		ch, err := resolved(ctx, iso, plan, "resolved by "+c.Resolver)
		return &ch, err
	case rw.status.Done():
		return toUser(fmt.Sprintf("the merge task %s did not complete", c.Resolver))
	}
	return nil, nil
}

// resolved records the finished merge of the conflicting task, resolved as
// how says.
func resolved(ctx context.Context, iso *isolation.Workspace, plan *taskPlan, how string) (change, error) {
	task, text, err := iso.Resolved(ctx, how)
	if err != nil {
		return change{}, err
	}
	return change{}.with(nil, newEvent(EventWorkerMerged, plan.workers[task], text)).say(""), nil
}

// Worktree is a run's worktree isolation as a view shows it.
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
	Outcome string            `json:"outcome,omitempty"`
	Applied *worktree.Applied `json:"applied,omitempty"`
	Cleaned bool              `json:"cleaned"`
	// Pushes and PullRequest: where the branch went (branch.go).
	Pushes      []isolation.Push       `json:"pushes,omitempty"`
	PullRequest *isolation.PullRequest `json:"pullRequest,omitempty"`
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

// storedIso reads the worktree state of a stored run (nil without one).
func storedIso(run store.Run) (*isolation.State, error) {
	if len(run.State) == 0 {
		return nil, nil
	}
	var rs runState
	if err := json.Unmarshal(run.State, &rs); err != nil {
		return nil, fmt.Errorf("run state: %w", err)
	}
	return rs.Worktree, nil
}

func worktreeView(run store.Run, tasks []store.Task) (*Worktree, error) {
	iso, err := storedIso(run)
	if err != nil || iso == nil {
		return nil, err
	}
	if iso.Run == nil {
		// Before the first worker: the branch it will make (none when the
		// run ended before).
		w := &Worktree{Branch: worktree.RunBranch(run.ID), Dirty: iso.Dirty, Tasks: []TaskChanges{}}
		if store.Finished(run.Status) {
			w.Outcome, w.Cleaned = "empty", true
		}
		return w, nil
	}
	w := &Worktree{Repo: iso.Run.Repo, Branch: iso.Run.Branch, Base: iso.Run.Base, RunDir: iso.Run.RunDir(), Dirty: iso.Run.Dirty,
		MergeCommand: iso.Run.MergeCommand(), DiscardCommand: iso.Run.DiscardCommand(), Outcome: iso.Outcome, Applied: iso.Applied, Cleaned: iso.Cleaned, Tasks: []TaskChanges{},
		Pushes: iso.Pushes, PullRequest: iso.PullRequest}
	for _, t := range tasks {
		it := iso.Tasks[t.ID]
		if it == nil {
			continue
		}
		tc := TaskChanges{TaskID: t.ID, Merged: it.Merged != nil, Dropped: it.Dropped, Error: it.Error, Resolves: it.Resolves, Changes: []worktree.FileChange{},
			Applied: slices.Contains(iso.AppliedTasks, t.ID), Machine: it.Machine}
		if it.Merged != nil {
			tc.Changes, tc.Commit = it.Merged.Changes, it.Merged.Commit
		}
		w.Tasks = append(w.Tasks, tc)
	}
	if c := iso.Conflict; c != nil {
		w.Conflict = &ConflictState{TaskID: c.Task, Files: c.Files, Resolver: c.Resolver, ByUser: c.Resolver == isolation.ResolverUser}
	}
	return w, nil
}

// TaskPatch returns the patch of one task's merged changes (git diff).
func (e *Engine) TaskPatch(ctx context.Context, runID, taskID string) (string, error) {
	run, err := e.store.Run(ctx, runID)
	if errors.Is(err, store.ErrNotFound) {
		return "", fmt.Errorf("run %s: %w", runID, ErrUnknownRun)
	}
	if err != nil {
		return "", err
	}
	iso, err := storedIso(run)
	if err != nil {
		return "", err
	}
	if iso == nil || iso.Run == nil {
		return "", fmt.Errorf("run %s has no worktrees: %w", runID, ErrBadRequest)
	}
	it := iso.Tasks[taskID]
	switch {
	case it == nil:
		return "", fmt.Errorf("task %s of run %s: %w", taskID, runID, ErrUnknownTask)
	case it.Merged != nil:
		return iso.Run.Patch(ctx, it.Merged.Base, it.Merged.Tip)
	case iso.Conflict != nil && iso.Conflict.Task == taskID:
		return iso.Run.Patch(ctx, iso.Conflict.Base, iso.Conflict.Tip)
	}
	return "", nil
}

// Apply merges a finished run's branch into the user's current branch (a
// fast forward where possible) and removes the branch. It refuses, changing
// nothing, when the user's uncommitted changes touch the same files.
func (e *Engine) Apply(ctx context.Context, runID string) (worktree.Applied, error) {
	var applied worktree.Applied
	err := e.endBranch(ctx, runID, "applied", func(wr *worktree.Run) error {
		var err error
		if applied, err = wr.Apply(ctx); err != nil {
			return err
		}
		return wr.Discard(ctx)
	}, func(iso *isolation.State) string {
		iso.Applied = &applied
		how := "merged"
		switch {
		case applied.Nothing:
			how = "already held by"
		case applied.FastForward:
			how = "fast-forwarded into"
		}
		return fmt.Sprintf("The changes of %s were %s your branch %s.", iso.Run.Branch, how, applied.Into)
	})
	return applied, err
}

// Discard drops a finished run's branch and worktrees; the user's branch
// stays as it is.
func (e *Engine) Discard(ctx context.Context, runID string) error {
	return e.endBranch(ctx, runID, "discarded", func(wr *worktree.Run) error { return wr.Discard(ctx) },
		func(iso *isolation.State) string { return fmt.Sprintf("The branch %s was discarded.", iso.Run.Branch) })
}

func (e *Engine) endBranch(ctx context.Context, runID, outcome string, do func(*worktree.Run) error, note func(*isolation.State) string) error {
	return e.onBranch(ctx, runID, func(iso *isolation.State) (string, error) {
		if err := iso.End(ctx, outcome, do); err != nil {
			return "", err
		}
		return note(iso), nil
	})
}
