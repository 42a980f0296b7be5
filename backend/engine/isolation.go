package engine

import (
	"context"
	"fmt"

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
		ev.P.Tasks = []store.Task{mt}
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

// The run's worktree isolation as a view shows it (isolation.View).
type (
	Worktree      = isolation.View
	TaskChanges   = isolation.TaskChanges
	ConflictState = isolation.ConflictState
)
