package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/baton-app/baton/backend/service"
	"github.com/baton-app/baton/backend/session"
	"github.com/baton-app/baton/backend/view"
)

const runCallTimeout = 60 * time.Second

// runError turns an error of the run use cases into one sentence for the
// user.
func runError(action string, err error) error {
	var tl *service.TaskListError
	switch {
	case errors.As(err, &tl):
		return errors.New(sentence("The task list cannot be confirmed yet: " + tl.Error()))
	case errors.Is(err, service.ErrUnknownRun):
		return errors.New("That run does not exist any more; refresh the list.")
	case errors.Is(err, service.ErrUnknownTask):
		return errors.New("That task is not part of the run; refresh the run.")
	case errors.Is(err, service.ErrIllegalTransition), errors.Is(err, service.ErrBadRequest), errors.Is(err, service.ErrNotDriven),
		errors.Is(err, service.ErrDriven), errors.Is(err, service.ErrOtherHost):
		return errors.New(sentence(plain(err)))
	}
	slog.Error("run binding failed", "component", "app", "action", action, "err", err)
	return errors.New(sentence(fmt.Sprintf("Baton could not %s: %s", action, plain(err))))
}

// plain drops the sentinel suffix (": bad request") from an error text.
func plain(err error) string {
	msg := err.Error()
	for _, s := range []error{service.ErrBadRequest, service.ErrIllegalTransition, service.ErrNotDriven, service.ErrDriven} {
		msg = strings.TrimSuffix(msg, ": "+s.Error())
	}
	return msg
}

func runCtx() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), runCallTimeout)
}

// StartRun creates a run and starts its analysis.
func (a *App) StartRun(req view.CreateRequest) (view.Run, error) {
	switch {
	case strings.TrimSpace(req.TemplateID) == "":
		return view.Run{}, errors.New("Choose a template.")
	case strings.TrimSpace(req.Cwd) == "":
		return view.Run{}, errors.New("Choose the project folder.")
	case strings.TrimSpace(req.Request) == "":
		return view.Run{}, errors.New("Describe what the run should do.")
	}
	ctx, cancel := runCtx()
	defer cancel()
	run, err := a.Runs.Create(ctx, req)
	if err != nil {
		return view.Run{}, runError("create the run", err)
	}
	if _, err := a.Settings.AddRecentFolder(req.Cwd); err != nil {
		slog.Warn("remember recent folder", "component", "app", "err", err)
	}
	if err := a.Runs.Start(ctx, run.ID); err != nil {
		return run, runError("start the run", err)
	}
	return run, nil
}

// RunSnapshot returns everything about one run, live or from history.
func (a *App) RunSnapshot(runID string) (view.Snapshot, error) {
	ctx, cancel := runCtx()
	defer cancel()
	snap, err := a.Runs.Snapshot(ctx, runID)
	if err != nil {
		return view.Snapshot{}, runError("read the run", err)
	}
	return snap, nil
}

// ActiveRuns returns the runs that have not finished, newest first: those
// the engine drives and the stored ones it does not (paused, interrupted,
// waiting for their task list), each with its Resume or Cancel.
func (a *App) ActiveRuns() ([]view.Run, error) {
	ctx, cancel := runCtx()
	defer cancel()
	runs, err := a.Runs.Active(ctx)
	if err != nil {
		return nil, runError("list the active runs", err)
	}
	return runs, nil
}

// ConfirmRun accepts the task list with the user's changes and starts the workers.
func (a *App) ConfirmRun(runID string, mods view.Modifications) error {
	ctx, cancel := runCtx()
	defer cancel()
	if err := a.Runs.Confirm(ctx, runID, mods); err != nil {
		return runError("confirm the tasks", err)
	}
	return nil
}

// PauseRun stops starting new workers; running ones go on.
func (a *App) PauseRun(runID string) error {
	ctx, cancel := runCtx()
	defer cancel()
	if err := a.Runs.Pause(ctx, runID); err != nil {
		return runError("pause the run", err)
	}
	return nil
}

// ResumeRun continues a paused run.
func (a *App) ResumeRun(runID string) error {
	ctx, cancel := runCtx()
	defer cancel()
	if err := a.Runs.Resume(ctx, runID); err != nil {
		return runError("resume the run", err)
	}
	return nil
}

// CancelRun stops the run and its workers.
func (a *App) CancelRun(runID string) error {
	ctx, cancel := runCtx()
	defer cancel()
	if err := a.Runs.Cancel(ctx, runID); err != nil {
		return runError("cancel the run", err)
	}
	return nil
}

// WorkerAction pauses, resumes, cancels or retries one worker.
func (a *App) WorkerAction(runID, taskID, action string) error {
	switch action {
	case service.WorkerPause, service.WorkerResume, service.WorkerCancel, service.WorkerRetry:
	default:
		return fmt.Errorf("%q is not a worker action: use pause, resume, cancel or retry.", action)
	}
	ctx, cancel := runCtx()
	defer cancel()
	if err := a.Runs.Worker(ctx, runID, taskID, action); err != nil {
		return runError(action+" the worker", err)
	}
	return nil
}

// AnswerWorker answers the permission prompt a worker waits on: "once",
// "always" or "deny".
func (a *App) AnswerWorker(runID, taskID, decision string) error {
	d := session.PermissionDecision(decision)
	if !d.Valid() {
		return fmt.Errorf("%q is not an answer to a permission prompt: use Allow once, Always or Deny.", decision)
	}
	ctx, cancel := runCtx()
	defer cancel()
	if err := a.Runs.RespondPermission(ctx, runID, taskID, d); err != nil {
		return runError("answer the worker", err)
	}
	return nil
}

// ReviewTask approves or rejects a task that waits for the user's review; a
// rejection sends the task back to its worker with the reason.
func (a *App) ReviewTask(runID, taskID string, approve bool, reason string) error {
	switch {
	case strings.TrimSpace(runID) == "" || strings.TrimSpace(taskID) == "":
		return errors.New("Choose the task to review.")
	case !approve && strings.TrimSpace(reason) == "":
		return errors.New("Say why you reject the task: the worker gets the reason for its next attempt.")
	}
	ctx, cancel := runCtx()
	defer cancel()
	if err := a.Runs.Review(ctx, runID, taskID, approve, strings.TrimSpace(reason)); err != nil {
		if approve {
			return runError("approve the task", err)
		}
		return runError("reject the task", err)
	}
	return nil
}

// AnswerClarification sends the user's answer to the questions a worker
// asked (clarification_needed); the worker goes on with it.
func (a *App) AnswerClarification(runID, taskID, text string) error {
	switch {
	case strings.TrimSpace(runID) == "" || strings.TrimSpace(taskID) == "":
		return errors.New("Choose the worker to answer.")
	case strings.TrimSpace(text) == "":
		return errors.New("Type your answer to the worker's questions.")
	}
	ctx, cancel := runCtx()
	defer cancel()
	if err := a.Runs.Answer(ctx, runID, taskID, text); err != nil {
		return runError("send the answer", err)
	}
	return nil
}

// History returns one page of past runs.
func (a *App) History(q view.HistoryQuery) (view.HistoryPage, error) {
	ctx, cancel := runCtx()
	defer cancel()
	page, err := a.Runs.Page(ctx, q)
	if err != nil {
		if errors.Is(err, service.ErrInvalid) {
			return view.HistoryPage{}, errors.New(sentence(strings.TrimSuffix(err.Error(), ": "+service.ErrInvalid.Error())))
		}
		return view.HistoryPage{}, runError("read the history", err)
	}
	return page, nil
}

// DeleteRun removes a finished run from the history. A run that has not
// finished (interrupted included) is refused: cancel it first.
func (a *App) DeleteRun(runID string) error {
	if strings.TrimSpace(runID) == "" {
		return errors.New("No run is selected.")
	}
	ctx, cancel := runCtx()
	defer cancel()
	run, err := a.Runs.Delete(ctx, runID)
	if errors.Is(err, service.ErrNotFinished) {
		return deleteRefused(run)
	}
	if err != nil {
		return runError("delete the run", err)
	}
	return nil
}

// deleteRefused is the sentence for a run that cannot be deleted yet.
func deleteRefused(run view.Run) error {
	return fmt.Errorf("This run is %s, not finished, so it was not deleted: cancel it first.", view.StatusLabel(run.Status))
}

// Inbox returns everything that waits for the user across active runs.
func (a *App) Inbox() ([]view.InboxItem, error) {
	ctx, cancel := runCtx()
	defer cancel()
	items, err := a.Runs.Inbox(ctx)
	if err != nil {
		return nil, runError("read the inbox", err)
	}
	return view.InboxOf(items), nil
}
