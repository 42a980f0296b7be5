package service

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/baton-app/baton/backend/engine"
	"github.com/baton-app/baton/backend/inbox"
	"github.com/baton-app/baton/backend/session"
	"github.com/baton-app/baton/backend/store"
	"github.com/baton-app/baton/backend/template"
	"github.com/baton-app/baton/backend/view"
)

// Runs are the use cases on runs that the window and the terminal share:
// starting a run and everything the user does to it while it goes, the
// inbox, Apply and Discard of its branch, and the History with the runs
// this engine drives. They take and return view types, so neither face
// needs the engine's or the store's own.
type Runs struct {
	*History
	engine *engine.Engine
	// host gives the prompts of the runs' main sessions (nil: none).
	host inbox.Sessions
}

// NewRuns returns the use cases over an engine and the store it writes;
// host (which may be nil) gives the prompts of the main sessions to the
// inbox.
func NewRuns(eng *engine.Engine, st *store.Store, host inbox.Sessions) *Runs {
	return &Runs{History: &History{store: st, live: eng}, engine: eng, host: host}
}

// checked turns the engine's refusal to act on a run it does not drive
// into an error that says what to do: the run is listed among the active
// runs (it has not finished), but another process drives it (ErrDriven,
// naming it), or nobody does (ErrNotDriven: Resume takes it up).
func (r *Runs) checked(ctx context.Context, runID string, err error) error {
	if !errors.Is(err, ErrIllegalTransition) || slices.Contains(r.engine.Active(), runID) {
		return err
	}
	run, serr := r.store.Run(ctx, runID)
	if serr != nil || view.Finished(run.Status) {
		return err
	}
	if d := r.drivenBy(ctx, runID); d != nil && !d.Self {
		return fmt.Errorf("run %s is driven by %s; act on it there: %w", runID, d.Text, ErrDriven)
	}
	return fmt.Errorf("run %s is %s and no Baton drives it now; Resume takes it up here, or continue it with baton run --resume %s: %w",
		runID, view.StatusLabel(run.Status), runID, ErrNotDriven)
}

// takeUp makes this process drive run runID when it has not finished and no
// loop here drives it (another process left it paused or interrupted, or
// died): the run's lock, then its sessions. A run another live process
// drives is an ErrDriven naming that process.
func (r *Runs) takeUp(ctx context.Context, runID string) error {
	if slices.Contains(r.engine.Active(), runID) {
		return nil
	}
	run, err := r.store.Run(ctx, runID)
	if err != nil || view.Finished(run.Status) {
		return nil // the action says why
	}
	return r.engine.RestoreRun(ctx, runID)
}

// Busy reports whether the engine drives a run now: closing the window
// keeps Baton in the tray then, and the session host cannot change.
func (r *Runs) Busy() bool { return len(r.engine.Active()) > 0 }

// Create stores a new run; Start starts it.
func (r *Runs) Create(ctx context.Context, req view.CreateRequest) (view.Run, error) {
	run, err := r.engine.Create(ctx, view.EngineRequest(req))
	if err != nil {
		return view.Run{}, err
	}
	return view.RunOf(run), nil
}

// Check checks a new run as Create would, without storing it and before
// any session host is contacted: the template, its variables, the
// overrides (the permission mode among them), the folder and its
// isolation, and that the history database can be written.
func (r *Runs) Check(ctx context.Context, req view.CreateRequest) error {
	return r.engine.Check(ctx, view.EngineRequest(req))
}

// Start starts the analysis of a created run.
func (r *Runs) Start(ctx context.Context, runID string) error { return r.engine.Start(ctx, runID) }

// Restore takes up an unfinished run this engine does not drive (one that
// "baton run --resume" continues, or "baton cancel" cancels).
func (r *Runs) Restore(ctx context.Context, runID string) error {
	return r.engine.RestoreRun(ctx, runID)
}

// Move takes up a run on the host in use although it ran on another, as
// the user asked ("baton run --resume RUN --host …"): what it did stays,
// the sessions of the tasks not completed and the main session start again
// there. A run of this host is simply taken up (Move.Message is empty).
func (r *Runs) Move(ctx context.Context, runID string) (view.Move, error) {
	mv, err := r.engine.MoveRun(ctx, runID)
	if err != nil {
		return view.Move{}, err
	}
	return view.MoveOf(mv), nil
}

// Snapshot returns the state of a run as the engine holds it, with its wait
// for a lost host.
func (r *Runs) Snapshot(ctx context.Context, runID string) (view.Snapshot, error) {
	snap, err := r.engine.Snapshot(ctx, runID)
	if err != nil {
		return view.Snapshot{}, err
	}
	v := view.SnapshotOf(snap)
	v.Run.DrivenBy = r.drivenBy(ctx, runID)
	return v, nil
}

// Wait blocks until the run has finished or ctx ends, and returns it.
func (r *Runs) Wait(ctx context.Context, runID string) (view.Run, error) {
	run, err := r.engine.Wait(ctx, runID)
	if err != nil {
		return view.Run{}, err
	}
	return view.RunOf(run), nil
}

// Confirm accepts the proposed task list with the user's changes and starts
// the workers. A list that fails its checks is a *TaskListError.
func (r *Runs) Confirm(ctx context.Context, runID string, mods view.Modifications) error {
	return r.checked(ctx, runID, r.engine.Confirm(ctx, runID, view.EngineModifications(mods)))
}

// ConfirmPlan confirms the run with the tasks of a plan in place of the
// proposed ones: tasks whose id was proposed are edited to match the plan,
// new ids are added, and proposed tasks the plan leaves out are removed.
func (r *Runs) ConfirmPlan(ctx context.Context, runID string, plan []view.NewTask) error {
	snap, err := r.engine.Snapshot(ctx, runID)
	if err != nil {
		return err
	}
	return r.checked(ctx, runID, r.engine.Confirm(ctx, runID, planModifications(snap.Tasks, plan)))
}

// planModifications turns the proposed tasks into the plan's.
func planModifications(proposed []store.Task, plan []view.NewTask) engine.Modifications {
	var m engine.Modifications
	inPlan := map[string]bool{}
	known := map[string]bool{}
	for _, t := range proposed {
		known[t.ID] = true
	}
	for _, v := range plan {
		n := engine.NewTask(v)
		inPlan[n.ID] = true
		if !known[n.ID] {
			m.Add = append(m.Add, n)
			continue
		}
		prio := n.Priority
		if prio == 0 {
			prio = engine.DefaultPriority
		}
		scope, deps := n.Scope, n.Dependencies
		if scope == nil {
			scope = []string{}
		}
		if deps == nil {
			deps = []string{}
		}
		m.Edit = append(m.Edit, engine.TaskEdit{ID: n.ID, Title: &n.Title, Description: &n.Description, Scope: &scope,
			Priority: &prio, Dependencies: &deps, Complexity: &n.Complexity})
		m.Unskip = append(m.Unskip, n.ID)
	}
	for _, t := range proposed {
		if !inPlan[t.ID] {
			m.Remove = append(m.Remove, t.ID)
		}
	}
	return m
}

// TaskListProblems are the reasons the proposed tasks of a run cannot be
// confirmed (none when they can).
func (r *Runs) TaskListProblems(ctx context.Context, runID string) ([]string, error) {
	snap, err := r.engine.Snapshot(ctx, runID)
	if err != nil {
		return nil, err
	}
	var tmpl template.Template
	_ = json.Unmarshal(snap.Run.Template, &tmpl) // a template that does not read sets no limit
	err = engine.CheckTasks(snap.Tasks, tmpl.Config.MaxTasks)
	var tle *TaskListError
	if errors.As(err, &tle) {
		return tle.Problems, nil
	}
	if err != nil {
		return []string{err.Error()}, nil
	}
	return nil, nil
}

// Pause stops starting new workers; running ones go on. A run that no
// process drives any more (its process died) is taken up first.
func (r *Runs) Pause(ctx context.Context, runID string) error {
	if err := r.takeUp(ctx, runID); err != nil {
		return err
	}
	return r.checked(ctx, runID, r.engine.Pause(ctx, runID))
}

// Resume continues a paused or interrupted run, taking it up first when
// another process left it (a "baton run" that ended, Baton's window that
// quit); a run another live process drives is refused with its name.
func (r *Runs) Resume(ctx context.Context, runID string) error {
	if err := r.takeUp(ctx, runID); err != nil {
		return err
	}
	return r.checked(ctx, runID, r.engine.Resume(ctx, runID))
}

// Cancel stops the run and its workers, taking it up first like Resume.
func (r *Runs) Cancel(ctx context.Context, runID string) error {
	if err := r.takeUp(ctx, runID); err != nil {
		return err
	}
	return r.checked(ctx, runID, r.engine.Cancel(ctx, runID))
}

// drivenBy is the process that drives run runID now (nil: none).
func (r *Runs) drivenBy(ctx context.Context, runID string) *view.Driver {
	return r.History.drivenBy(ctx, runID)
}

// The actions on one worker.
const (
	WorkerPause  = "pause"
	WorkerResume = "resume"
	WorkerCancel = "cancel"
	WorkerRetry  = "retry"
)

// Worker pauses, resumes, cancels or retries the worker of one task; any
// other action is an ErrBadRequest.
func (r *Runs) Worker(ctx context.Context, runID, taskID, action string) error {
	var err error
	switch action {
	case WorkerPause:
		err = r.engine.PauseWorker(ctx, runID, taskID)
	case WorkerResume:
		err = r.engine.ResumeWorker(ctx, runID, taskID)
	case WorkerCancel:
		err = r.engine.CancelWorker(ctx, runID, taskID)
	case WorkerRetry:
		err = r.engine.RetryWorker(ctx, runID, taskID)
	default:
		return fmt.Errorf("%q is not a worker action: %w", action, ErrBadRequest)
	}
	return r.checked(ctx, runID, err)
}

// RespondPermission answers the permission prompt a worker waits on.
func (r *Runs) RespondPermission(ctx context.Context, runID, taskID string, d session.PermissionDecision) error {
	return r.checked(ctx, runID, r.engine.RespondPermission(ctx, runID, taskID, d, nil))
}

// AnswerQuestion answers the AskUserQuestion call a worker waits on:
// answers maps each question to the chosen option or the user's words.
func (r *Runs) AnswerQuestion(ctx context.Context, runID, taskID string, answers map[string]string) error {
	return r.checked(ctx, runID, r.engine.AnswerQuestion(ctx, runID, taskID, answers))
}

// Answer sends the user's answer to the questions a worker asked.
func (r *Runs) Answer(ctx context.Context, runID, taskID, text string) error {
	return r.checked(ctx, runID, r.engine.Answer(ctx, runID, taskID, text))
}

// Review approves or rejects a task that waits for the user's review; a
// rejection sends it back to its worker with the reason.
func (r *Runs) Review(ctx context.Context, runID, taskID string, approve bool, reason string) error {
	return r.checked(ctx, runID, r.engine.Review(ctx, runID, taskID, approve, reason))
}

// ResumeAfterLimit ends a run's wait for a limit now.
func (r *Runs) ResumeAfterLimit(ctx context.Context, runID string) error {
	return r.checked(ctx, runID, r.engine.ResumeAfterLimit(ctx, runID))
}

// RaiseBudget sets a run's budget (a zero field keeps that cap) and resumes
// the run if its budget paused it.
func (r *Runs) RaiseBudget(ctx context.Context, runID string, b view.Budget) error {
	return r.checked(ctx, runID, r.engine.RaiseBudget(ctx, runID, view.EngineBudget(b)))
}

// TaskPatch returns the unified diff of one task's changes on the run
// branch.
func (r *Runs) TaskPatch(ctx context.Context, runID, taskID string) (string, error) {
	return r.engine.TaskPatch(ctx, runID, taskID)
}

// Apply merges a finished run's branch into the user's current branch. It
// refuses, changing nothing, when the user's uncommitted changes touch the
// same files (a *worktree.DirtyOverlapError).
func (r *Runs) Apply(ctx context.Context, runID string) (view.Applied, error) {
	a, err := r.engine.Apply(ctx, runID)
	return view.AppliedOf(a), err
}

// Discard drops a finished run's branch; the user's branch stays as it is.
func (r *Runs) Discard(ctx context.Context, runID string) error { return r.engine.Discard(ctx, runID) }

// ResolveConflict answers the run's merge conflict: resolved (the files in
// the run's worktree were fixed) or not (the task's changes are left out).
func (r *Runs) ResolveConflict(ctx context.Context, runID string, resolved bool) error {
	return r.checked(ctx, runID, r.engine.ResolveConflict(ctx, runID, resolved))
}

// Inbox returns everything that waits for the user across the runs this
// engine drives.
func (r *Runs) Inbox(ctx context.Context) ([]inbox.Item, error) {
	return inbox.Collect(ctx, r.engine, r.host)
}
