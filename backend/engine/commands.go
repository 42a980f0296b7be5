package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/baton-app/baton/backend/session"
	"github.com/baton-app/baton/backend/store"
)

// The commands the Engine's methods send to a run's goroutine.

func (r *runner) confirm(ctx context.Context, mods Modifications) error {
	if r.status != RunConfirming {
		return illegalRun(r.status, RunSpawning)
	}
	tasks, err := mods.Apply(r.run.ID, r.plan.tasks)
	if err != nil {
		return err
	}
	if err := CheckTasks(tasks, r.tmpl.Config.MaxTasks); err != nil {
		return err
	}
	r.hooks.planned(tasks) // edits may change what a task is about
	r.hooks.confirmed(tasks)
	if err := r.move(RunSpawning); err != nil {
		return err
	}
	ws, err := r.plan.replace(r.run.ID, tasks)
	if err != nil {
		return err
	}
	r.run.Phase = string(PhaseWorkerExecution)
	r.run.Message = ""
	return r.commit(ctx, store.Change{Tasks: tasks, ReplaceTasks: true}, ws, r.ev(EventPhaseChanged, nil, ""))
}

func (r *runner) pause(ctx context.Context) error {
	if !r.status.CanMove(RunPaused) {
		return illegalRun(r.status, RunPaused)
	}
	r.resume = r.status
	if err := r.move(RunPaused); err != nil {
		return err
	}
	return r.commit(ctx, store.Change{}, nil, r.ev(EventPaused, nil, ""))
}

func (r *runner) resumeRun(ctx context.Context) error {
	if err := r.unpause(); err != nil {
		return err
	}
	now := r.e.now()
	for _, ws := range r.plan.workers {
		ws.activity = now
	}
	if r.main.Asked != "" {
		r.main.AskedAt = now
		r.markDirty(session.ID(r.run.MainSessionID), session.NoticeMessage)
	}
	return r.commit(ctx, store.Change{}, nil, r.ev(EventResumed, nil, ""))
}

func (r *runner) cancel(ctx context.Context) error {
	if !r.status.CanMove(RunCancelled) {
		return illegalRun(r.status, RunCancelled)
	}
	var ws []*workerState
	evs := []event{}
	for _, w := range r.plan.inOrder() {
		if w.status.Done() {
			continue
		}
		r.stopSession(ctx, w)
		if err := w.move(WorkerCancelled); err != nil {
			return err
		}
		if w.w.Error == "" {
			w.w.Error = "the run was cancelled"
		}
		ws = append(ws, w)
		evs = append(evs, r.ev(EventWorkerCancelled, w, ""))
	}
	if r.main.Asked != "" && r.run.MainSessionID != "" {
		hctx, cancel := r.hostCtx(ctx)
		if err := r.e.host.Interrupt(hctx, session.ID(r.run.MainSessionID)); err != nil {
			r.log().Debug("interrupt the main session", "err", err)
		}
		cancel()
	}
	r.main.Asked = ""
	if err := r.move(RunCancelled); err != nil {
		return err
	}
	now := r.e.now()
	r.run.CompletedAt = &now
	var change store.Change
	r.finalReport(ctx, &change)
	return r.commit(ctx, change, ws, append(evs, r.ev(EventCancelled, nil, ""))...)
}

func (r *runner) worker(taskID string) (*workerState, error) {
	ws := r.plan.workers[taskID]
	if ws == nil {
		return nil, fmt.Errorf("run %s has no worker for task %s: %w", r.run.ID, taskID, ErrUnknownTask)
	}
	return ws, nil
}

func (r *runner) pauseWorker(ctx context.Context, taskID string) error {
	ws, err := r.worker(taskID)
	if err != nil {
		return err
	}
	if ws.status != WorkerPending && ws.status != WorkerRunning {
		return illegalWorker(taskID, ws.status, WorkerPaused)
	}
	was := ws.status
	if err := ws.move(WorkerPaused); err != nil {
		return err
	}
	ws.book.Resume = was.String()
	return r.commit(ctx, store.Change{}, []*workerState{ws}, r.ev(EventWorkerPaused, ws, ""))
}

func (r *runner) resumeWorker(ctx context.Context, taskID string) error {
	ws, err := r.worker(taskID)
	if err != nil {
		return err
	}
	if ws.status != WorkerPaused {
		return fmt.Errorf("worker %s is %s, not paused: %w", taskID, ws.status, ErrIllegalTransition)
	}
	next := WorkerPending
	if ws.book.Resume == WorkerRunning.String() {
		next = WorkerRunning
	}
	if err := ws.move(next); err != nil {
		return err
	}
	if next == WorkerRunning {
		ws.activity = r.e.now()
		r.markDirty(session.ID(ws.w.SessionID), session.NoticeMessage)
	}
	ws.book.Resume = ""
	return r.commit(ctx, store.Change{}, []*workerState{ws}, r.ev(EventWorkerResumed, ws, ""))
}

func (r *runner) cancelWorker(ctx context.Context, taskID string) error {
	ws, err := r.worker(taskID)
	if err != nil {
		return err
	}
	if !ws.status.CanMove(WorkerCancelled) || ws.status == WorkerTimeout {
		return illegalWorker(taskID, ws.status, WorkerCancelled)
	}
	r.stopSession(ctx, ws)
	if err := ws.move(WorkerCancelled); err != nil {
		return err
	}
	ws.w.Error = "cancelled by the user"
	now := r.e.now()
	ws.w.CompletedAt = &now
	skipped, err := r.plan.skipDependents(taskID, fmt.Sprintf("skipped because %s was cancelled", taskID))
	if err != nil {
		return err
	}
	r.hooks.skipped(ids(skipped))
	evs := []event{r.ev(EventWorkerCancelled, ws, "")}
	if len(skipped) > 0 {
		evs[0].p.Skipped = ids(skipped)
	}
	for _, s := range skipped {
		evs = append(evs, r.ev(EventWorkerSkipped, s, s.w.Error))
	}
	return r.commit(ctx, store.Change{}, append([]*workerState{ws}, skipped...), evs...)
}

func (r *runner) retryWorker(ctx context.Context, taskID string) error {
	ws, err := r.worker(taskID)
	if err != nil {
		return err
	}
	work := r.status == RunSpawning || r.status == RunRunning ||
		(r.status.held() && (r.resume == RunSpawning || r.resume == RunRunning))
	if !work {
		return fmt.Errorf("run is %s; workers can be retried only while they run: %w", r.status, ErrIllegalTransition)
	}
	if ws.w.Skipped && ws.book.SkippedBy == "" {
		// A task the user skipped: run it after all.
		ws.w.Skipped = false
	} else if !ws.status.CanMove(WorkerPending) || ws.status == WorkerPaused || ws.status == WorkerSpawning ||
		ws.status == WorkerRunning {
		return illegalWorker(taskID, ws.status, WorkerPending)
	}
	changed := []*workerState{ws}
	for _, o := range r.plan.workers {
		if o.w.Skipped && o.book.SkippedBy != "" && r.plan.dependsOn(o.w.TaskID, taskID) {
			if err := o.move(WorkerPending); err != nil {
				return err
			}
			o.w.Skipped = false
			o.w.Error = ""
			o.book.SkippedBy = ""
			changed = append(changed, o)
		}
	}
	ws.w.Skipped = false
	if err := r.requeue(ctx, ws, "", false, true); err != nil {
		return err
	}
	if len(changed) > 1 {
		return r.commit(ctx, store.Change{}, changed[1:])
	}
	return nil
}

// reattach prepares a restored run: each worker session that exists is
// followed again from where it was read; one that never started is started
// again under the same id.
func (r *runner) reattach(ctx context.Context) error {
	// The loop takes up the workflows' files (the mailbox) when it starts,
	// so that what they start is owned by the run's goroutine.
	r.restored = !r.status.Finished() && r.status >= RunSpawning
	for _, ws := range r.plan.inOrder() {
		if err := r.reattachWorker(ctx, ws); err != nil {
			return err
		}
	}
	r.reattachMain(ctx)
	if r.main.Asked != "" {
		r.main.replay()
		r.main.AskedAt = r.e.now()
	}
	// Announce the restored state; a run that waits for confirmation shows
	// its plan again, so a view (or "baton run --resume") can ask for it.
	evs := []event{r.ev(EventStatusChanged, nil, "restored")}
	if r.status == RunConfirming {
		ready := r.ev(EventTasksReady, nil, "")
		ready.p.Tasks, ready.p.Groups = r.plan.tasks, ParallelGroups(r.plan.tasks)
		evs = append(evs, ready)
		var tle *TaskListError
		if err := CheckTasks(r.plan.tasks, r.tmpl.Config.MaxTasks); errors.As(err, &tle) {
			inv := r.ev(EventTasksInvalid, nil, err.Error())
			inv.p.Problems = tle.Problems
			evs = append(evs, inv)
		}
	}
	return r.commit(ctx, store.Change{}, r.plan.inOrder(), evs...)
}

func (r *runner) reattachWorker(ctx context.Context, ws *workerState) error {
	if ws.status != WorkerSpawning && ws.status != WorkerRunning &&
		!(ws.status == WorkerPaused && ws.w.SessionID != "") && ws.status != WorkerTimeout {
		return nil
	}
	hctx, cancel := r.hostCtx(ctx)
	_, err := r.e.host.Session(hctx, session.ID(ws.w.SessionID))
	cancel()
	missing := errors.Is(err, session.ErrNoSession)
	switch {
	case err == nil && ws.status == WorkerTimeout:
		// Timed out before the stop: stop it now.
		return r.workerFailed(ctx, ws, ws.w.Error, true)
	case err == nil || (!missing && ws.status != WorkerTimeout):
		// Alive, or not visible right now for another reason: follow it
		// (reads that keep failing end in a retry), never start a second.
		if err != nil {
			r.log().Warn("worker session not checked on restore", "task", ws.w.TaskID, "err", err)
		}
		if ws.status == WorkerSpawning {
			if err := ws.move(WorkerRunning); err != nil {
				return err
			}
			now := r.e.now()
			ws.w.StartedAt = &now
		}
		ws.book.replay()
		ws.activity = r.e.now()
	case ws.status == WorkerSpawning:
		// Never started: start it (under the same id) again.
		if err := ws.move(WorkerPending); err != nil {
			return err
		}
		ws.w.SessionID = ""
	default:
		r.log().Warn("worker session is gone", "task", ws.w.TaskID, "err", err)
		if ws.status == WorkerPaused {
			if err := ws.move(WorkerRunning); err != nil {
				return err
			}
		}
		reason := fmt.Sprintf("the worker session was lost: %v", err)
		if r.status.held() && ws.book.AutoRetries < r.tmpl.Config.MaxRetries {
			// A held run (an interrupted one, whose host came back without
			// its sessions) runs the task again once it is resumed.
			return r.requeue(ctx, ws, reason, true, true)
		}
		return r.workerFailed(ctx, ws, reason, true)
	}
	return nil
}

func (r *runner) respondPermission(ctx context.Context, taskID string, decision session.PermissionDecision, input json.RawMessage) error {
	ws, err := r.worker(taskID)
	if err != nil {
		return err
	}
	if ws.w.Waiting == nil {
		return fmt.Errorf("worker %s is not waiting for a permission: %w", taskID, ErrBadRequest)
	}
	if !decision.Valid() {
		return fmt.Errorf("permission decision %q is not once, always or deny: %w", decision, ErrBadRequest)
	}
	b := r.e.host.browser()
	if b == nil {
		return fmt.Errorf("this session host cannot answer permission requests: %w", ErrBadRequest)
	}
	hctx, cancel := r.hostCtx(ctx)
	defer cancel()
	if err := b.RespondPermission(hctx, ws.w.Waiting.RequestID, decision, input); err != nil {
		return fmt.Errorf("answer the permission request of %s: %w", taskID, err)
	}
	ws.w.Waiting = nil
	ws.activity = r.e.now()
	r.markDirty(session.ID(ws.w.SessionID), session.NoticePermission)
	return r.commit(ctx, store.Change{}, []*workerState{ws}, r.ev(EventWorkerWaiting, ws, "permission answered: "+string(decision)))
}
