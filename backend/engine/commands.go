package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/baton-app/baton/backend/isolation"
	"github.com/baton-app/baton/backend/permgate"
	"github.com/baton-app/baton/backend/prompts"
	"github.com/baton-app/baton/backend/runstatus"
	"github.com/baton-app/baton/backend/session"
)

// The Engine's commands: each runs in the goroutine of its run (Engine.do),
// asks the concern it is about what changes, and has the runner apply it.

// Start begins a created run: the analysis (or, when the template disables
// it, the planning) prompt goes to a new main session.
func (e *Engine) Start(ctx context.Context, runID string) error {
	return e.do(ctx, runID, func(ctx context.Context, r *runner) error { return r.begin(ctx) })
}

// Confirm accepts the proposed task list with the user's modifications and
// starts the workers. A list that fails the checks is refused with a
// *TaskListError and the run stays in confirming, unchanged.
func (e *Engine) Confirm(ctx context.Context, runID string, mods Modifications) error {
	return e.do(ctx, runID, func(ctx context.Context, r *runner) error { return r.confirm(ctx, mods) })
}

// Pause stops starting new workers and sending new prompts; nothing running
// is interrupted.
func (e *Engine) Pause(ctx context.Context, runID string) error {
	return e.do(ctx, runID, func(ctx context.Context, r *runner) error {
		if !r.status.CanMove(RunPaused) {
			return runstatus.IllegalRun(r.status, RunPaused)
		}
		r.resume = r.status
		if err := r.move(RunPaused); err != nil {
			return err
		}
		return r.apply(ctx, change{}.with(nil, newEvent(EventPaused, nil, "")))
	})
}

// Resume returns a paused or interrupted run to the status it was held in.
// A held run the engine is not driving (its loop stopped when it was
// interrupted) is taken up from the store first. A loop that lets go of
// the run while the Resume waits for it (it stops the run as interrupted
// at that moment) hands it over: the run is taken up again and resumed.
func (e *Engine) Resume(ctx context.Context, runID string) error {
	for range 3 {
		if err := e.restoreHeld(ctx, runID); err != nil {
			return err
		}
		err := e.do(ctx, runID, func(ctx context.Context, r *runner) error { return r.resumeRun(ctx) })
		if !errors.Is(err, errLetGo) {
			return err
		}
		e.letGo(ctx, runID)
	}
	return fmt.Errorf("run %s could not be taken up: %w", runID, ErrIllegalTransition)
}

// letGo waits until no loop of the engine holds run runID any more.
func (e *Engine) letGo(ctx context.Context, runID string) {
	e.mu.Lock()
	r := e.runs[runID]
	e.mu.Unlock()
	if r == nil {
		return
	}
	select {
	case <-r.done:
	case <-ctx.Done():
	}
}

// Cancel interrupts and archives the run's workers and ends it as cancelled.
func (e *Engine) Cancel(ctx context.Context, runID string) error {
	return e.do(ctx, runID, func(ctx context.Context, r *runner) error { return r.cancel(ctx) })
}

// doWorker runs fn in the goroutine of run runID with the worker of task
// taskID, and applies the change fn decides.
func (e *Engine) doWorker(ctx context.Context, runID, taskID string, fn func(ctx context.Context, r *runner, ws *workerState) (change, error)) error {
	return e.do(ctx, runID, func(ctx context.Context, r *runner) error {
		ws, err := r.plan.worker(r.run.ID, taskID)
		if err != nil {
			return err
		}
		c, err := fn(ctx, r, ws)
		if err != nil {
			return err
		}
		return r.apply(ctx, c)
	})
}

// PauseWorker stops watching one worker (and keeps a pending one from
// starting) without interrupting it.
func (e *Engine) PauseWorker(ctx context.Context, runID, taskID string) error {
	return e.doWorker(ctx, runID, taskID, func(ctx context.Context, r *runner, ws *workerState) (change, error) {
		return ws.pause()
	})
}

// ResumeWorker undoes PauseWorker.
func (e *Engine) ResumeWorker(ctx context.Context, runID, taskID string) error {
	return e.doWorker(ctx, runID, taskID, func(ctx context.Context, r *runner, ws *workerState) (change, error) {
		c, err := ws.unpause(r.e.now())
		if err == nil && ws.status == WorkerRunning {
			r.follow.Mark(session.ID(ws.w.SessionID), session.NoticeMessage)
		}
		return c, err
	})
}

// CancelWorker interrupts and archives one worker; its dependents are
// skipped.
func (e *Engine) CancelWorker(ctx context.Context, runID, taskID string) error {
	return e.doWorker(ctx, runID, taskID, func(ctx context.Context, r *runner, ws *workerState) (change, error) {
		if err := ws.cancellable(); err != nil {
			return change{}, err
		}
		r.archive.Stop(ctx, ws.live(), ws.w.TaskID)
		return r.plan.cancel(ws, r.e.now())
	})
}

// RetryWorker runs a failed, timed-out, cancelled or rejected task again in
// a new session; the tasks skipped because of it become pending again.
func (e *Engine) RetryWorker(ctx context.Context, runID, taskID string) error {
	return e.doWorker(ctx, runID, taskID, func(ctx context.Context, r *runner, ws *workerState) (change, error) {
		work := r.status == RunSpawning || r.status == RunRunning ||
			(r.status.Held() && (r.resume == RunSpawning || r.resume == RunRunning))
		if !work {
			return change{}, fmt.Errorf("run is %s; workers can be retried only while they run: %w", r.status, ErrIllegalTransition)
		}
		return r.plan.retry(ws)
	})
}

// RespondPermission answers the permission request worker taskID is
// blocked on (the host must also be a session.Browser).
func (e *Engine) RespondPermission(ctx context.Context, runID, taskID string, decision session.PermissionDecision, updatedInput json.RawMessage) error {
	return e.doWorker(ctx, runID, taskID, func(ctx context.Context, r *runner, ws *workerState) (change, error) {
		if ws.w.Waiting == nil {
			return change{}, fmt.Errorf("worker %s is not waiting for a permission: %w", taskID, ErrBadRequest)
		}
		if !decision.Valid() {
			return change{}, fmt.Errorf("permission decision %q is not once, always or deny: %w", decision, ErrBadRequest)
		}
		b := r.e.host.Browser()
		if b == nil {
			return change{}, fmt.Errorf("this session host cannot answer permission requests: %w", ErrBadRequest)
		}
		if err := b.RespondPermission(ctx, ws.w.Waiting.RequestID, decision, updatedInput); err != nil {
			return change{}, fmt.Errorf("answer the permission request of %s: %w", taskID, err)
		}
		r.follow.Mark(session.ID(ws.w.SessionID), session.NoticePermission)
		req := session.PermissionRequest{RequestID: ws.w.Waiting.RequestID, ToolName: ws.w.Waiting.ToolName, Input: ws.w.Waiting.Input}
		return logged(r.gate, r.run.MainSessionID, ws, req, permgate.User(r.e.now(), req, decision)).and(ws.permitted(decision, r.e.now())), nil
	})
}

// Review decides on a task awaiting review: approve completes it; a
// rejection sends it back to its worker with the reason.
func (e *Engine) Review(ctx context.Context, runID, taskID string, approve bool, reason string) error {
	return e.doWorker(ctx, runID, taskID, func(ctx context.Context, r *runner, ws *workerState) (change, error) {
		return r.review.user(ws, approve, reason, &r.plan, r.e.now())
	})
}

// Answer sends the user's answer to the questions of a worker that asked
// for clarification (seed 003); the worker continues in the same session.
func (e *Engine) Answer(ctx context.Context, runID, taskID, text string) error {
	return e.doWorker(ctx, runID, taskID, func(ctx context.Context, r *runner, ws *workerState) (change, error) {
		if len(ws.w.Questions) == 0 || ws.status != WorkerRunning {
			return change{}, fmt.Errorf("worker %s is %s and has no open question: %w", taskID, ws.status, ErrIllegalTransition)
		}
		if strings.TrimSpace(text) == "" {
			return change{}, fmt.Errorf("the answer to %s is empty: %w", taskID, ErrBadRequest)
		}
		id := session.ID(ws.w.SessionID)
		if err := r.e.host.Send(ctx, id, prompts.Answer(text)); err != nil {
			return change{}, fmt.Errorf("send the answer to %s: %w", taskID, err)
		}
		r.follow.Mark(id, session.NoticeMessage)
		return ws.told(text, r.e.now()), nil
	})
}

// ResolveConflict answers the run's merge conflict for the user: resolved
// (the conflicting files in the run's worktree were fixed; Baton commits
// the merge) or not (the task's changes are left out of the run branch).
func (e *Engine) ResolveConflict(ctx context.Context, runID string, done bool) error {
	return e.do(ctx, runID, func(ctx context.Context, r *runner) error {
		if r.iso == nil || r.iso.Conflict == nil {
			return fmt.Errorf("the run has no merge conflict to resolve: %w", ErrBadRequest)
		}
		c := r.iso.Conflict
		if c.Resolver != isolation.ResolverUser {
			if rw := r.plan.workers[c.Resolver]; rw != nil && !rw.status.Done() {
				return fmt.Errorf("the merge task %s is resolving the conflict: %w", c.Resolver, ErrBadRequest)
			}
		}
		if err := r.openWorkspace(ctx); err != nil {
			return err
		}
		if !done {
			task, text, err := r.iso.DropConflict(ctx)
			if err != nil {
				return err
			}
			return r.apply(ctx, change{}.with(nil, newEvent(EventWorkerMerged, r.plan.workers[task], text)).say(""))
		}
		if err := r.iso.FinishConflict(ctx); err != nil {
			return fmt.Errorf("%w: %w", err, ErrBadRequest)
		}
		ch, err := resolved(ctx, r.iso, &r.plan, "resolved by you")
		if err != nil {
			return err
		}
		return r.apply(ctx, ch)
	})
}

func (r *runner) confirm(ctx context.Context, mods Modifications) error {
	if r.status != RunConfirming {
		return runstatus.IllegalRun(r.status, RunSpawning)
	}
	tasks, err := mods.Apply(r.run.ID, r.plan.tasks)
	if err != nil {
		return err
	}
	if err := CheckTasks(tasks, r.tmpl.Config.MaxTasks); err != nil {
		return err
	}
	r.flows.Planned(tasks) // edits may change what a task is about
	r.flows.Confirmed(tasks)
	if err := r.move(RunSpawning); err != nil {
		return err
	}
	ws, err := r.plan.replace(r.run.ID, tasks)
	if err != nil {
		return err
	}
	r.run.Phase = string(PhaseWorkerExecution)
	c := change{}.with(ws, newEvent(EventPhaseChanged, nil, "")).say("")
	c.Tasks, c.ReplaceTasks = tasks, true
	return r.apply(ctx, c)
}

func (r *runner) resumeRun(ctx context.Context) error {
	if err := r.unpause(); err != nil {
		return err
	}
	now := r.e.now()
	r.plan.touch(now)
	r.link.Retry(time.Now())
	if r.main.Asked != "" {
		r.main.Refresh(now)
		r.follow.Mark(session.ID(r.run.MainSessionID), session.NoticeMessage)
	}
	return r.apply(ctx, change{}.with(nil, newEvent(EventResumed, nil, "")))
}

func (r *runner) cancel(ctx context.Context) error {
	if !r.status.CanMove(RunCancelled) {
		return runstatus.IllegalRun(r.status, RunCancelled)
	}
	c := change{final: true}
	for _, w := range r.plan.inOrder() {
		if w.status.Done() {
			continue
		}
		r.archive.Stop(ctx, w.live(), w.w.TaskID)
		if err := w.move(WorkerCancelled); err != nil {
			return err
		}
		if w.w.Error == "" {
			w.w.Error = "the run was cancelled"
		}
		c = c.with([]*workerState{w}, newEvent(EventWorkerCancelled, w, ""))
	}
	if r.main.Asked != "" && r.run.MainSessionID != "" {
		if err := r.e.host.Interrupt(ctx, session.ID(r.run.MainSessionID)); err != nil {
			r.log.Debug("interrupt the main session", "err", err)
		}
	}
	r.main.Answered()
	if err := r.move(RunCancelled); err != nil {
		return err
	}
	now := r.e.now()
	r.run.CompletedAt = &now
	return r.apply(ctx, c.with(nil, newEvent(EventCancelled, nil, "")))
}
