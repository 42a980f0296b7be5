package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/baton-app/baton/backend/engine"
	"github.com/baton-app/baton/backend/inbox"
	"github.com/baton-app/baton/backend/session"
	"github.com/baton-app/baton/backend/store"
	"github.com/baton-app/baton/backend/view"
)

const runCallTimeout = 60 * time.Second

// runError turns an engine or store error into one sentence for the user.
func runError(action string, err error) error {
	var tl *engine.TaskListError
	switch {
	case errors.As(err, &tl):
		return errors.New(sentence("The task list cannot be confirmed yet: " + tl.Error()))
	case errors.Is(err, engine.ErrUnknownRun), errors.Is(err, store.ErrNotFound):
		return errors.New("That run does not exist any more; refresh the list.")
	case errors.Is(err, engine.ErrUnknownTask):
		return errors.New("That task is not part of the run; refresh the run.")
	case errors.Is(err, engine.ErrIllegalTransition), errors.Is(err, engine.ErrBadRequest):
		return errors.New(sentence(plain(err)))
	}
	slog.Error("run binding failed", "component", "app", "action", action, "err", err)
	return errors.New(sentence(fmt.Sprintf("Baton could not %s: %s", action, plain(err))))
}

// plain drops the sentinel suffix (": bad request") from an error text.
func plain(err error) string {
	msg := err.Error()
	for _, s := range []error{engine.ErrBadRequest, engine.ErrIllegalTransition} {
		msg = strings.TrimSuffix(msg, ": "+s.Error())
	}
	return msg
}

func runCtx() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), runCallTimeout)
}

// StartRun creates a run and starts its analysis.
func (a *App) StartRun(req engine.CreateRequest) (view.Run, error) {
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
	run, err := a.Engine.Create(ctx, req)
	if err != nil {
		return view.Run{}, runError("create the run", err)
	}
	if _, err := a.Settings.AddRecentFolder(req.Cwd); err != nil {
		slog.Warn("remember recent folder", "component", "app", "err", err)
	}
	if err := a.Engine.Start(ctx, run.ID); err != nil {
		return view.RunOf(run), runError("start the run", err)
	}
	return view.RunOf(run), nil
}

// RunSnapshot returns everything about one run, live or from history.
func (a *App) RunSnapshot(runID string) (view.Snapshot, error) {
	ctx, cancel := runCtx()
	defer cancel()
	snap, err := a.Engine.Snapshot(ctx, runID)
	if err != nil {
		return view.Snapshot{}, runError("read the run", err)
	}
	return view.SnapshotOf(snap), nil
}

// ActiveRuns returns the runs the engine is driving, newest first.
func (a *App) ActiveRuns() ([]view.Run, error) {
	ctx, cancel := runCtx()
	defer cancel()
	var runs []store.Run
	for _, id := range a.Engine.Active() {
		snap, err := a.Engine.Snapshot(ctx, id)
		if errors.Is(err, engine.ErrUnknownRun) {
			continue
		}
		if err != nil {
			return nil, runError("list the active runs", err)
		}
		runs = append(runs, snap.Run)
	}
	// A run interrupted because its host stayed away is no longer driven,
	// but it is listed with its Resume button until it is resumed.
	if held, err := a.Store.Unfinished(ctx); err == nil {
		for _, r := range held {
			if r.Status == engine.RunInterrupted.String() && !slices.ContainsFunc(runs, func(x store.Run) bool { return x.ID == r.ID }) {
				runs = append(runs, r)
			}
		}
	}
	// Newest first; runs started in the same instant keep the engine's order.
	slices.SortStableFunc(runs, func(x, y store.Run) int { return y.CreatedAt.Compare(x.CreatedAt) })
	if runs == nil {
		return []view.Run{}, nil
	}
	out := view.RunsOf(runs)
	for i := range out {
		out[i].Reconnecting = a.Engine.Reconnecting(out[i].ID)
	}
	return out, nil
}

// ConfirmRun accepts the task list with the user's changes and starts the workers.
func (a *App) ConfirmRun(runID string, mods engine.Modifications) error {
	ctx, cancel := runCtx()
	defer cancel()
	if err := a.Engine.Confirm(ctx, runID, mods); err != nil {
		return runError("confirm the tasks", err)
	}
	return nil
}

// PauseRun stops starting new workers; running ones go on.
func (a *App) PauseRun(runID string) error {
	ctx, cancel := runCtx()
	defer cancel()
	if err := a.Engine.Pause(ctx, runID); err != nil {
		return runError("pause the run", err)
	}
	return nil
}

// ResumeRun continues a paused run.
func (a *App) ResumeRun(runID string) error {
	ctx, cancel := runCtx()
	defer cancel()
	if err := a.Engine.Resume(ctx, runID); err != nil {
		return runError("resume the run", err)
	}
	return nil
}

// CancelRun stops the run and its workers.
func (a *App) CancelRun(runID string) error {
	ctx, cancel := runCtx()
	defer cancel()
	if err := a.Engine.Cancel(ctx, runID); err != nil {
		return runError("cancel the run", err)
	}
	return nil
}

// WorkerAction pauses, resumes, cancels or retries one worker.
func (a *App) WorkerAction(runID, taskID, action string) error {
	ctx, cancel := runCtx()
	defer cancel()
	var err error
	switch action {
	case "pause":
		err = a.Engine.PauseWorker(ctx, runID, taskID)
	case "resume":
		err = a.Engine.ResumeWorker(ctx, runID, taskID)
	case "cancel":
		err = a.Engine.CancelWorker(ctx, runID, taskID)
	case "retry":
		err = a.Engine.RetryWorker(ctx, runID, taskID)
	default:
		return fmt.Errorf("%q is not a worker action: use pause, resume, cancel or retry.", action)
	}
	if err != nil {
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
	if err := a.Engine.RespondPermission(ctx, runID, taskID, d, nil); err != nil {
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
	if err := a.Engine.Review(ctx, runID, taskID, approve, strings.TrimSpace(reason)); err != nil {
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
	if err := a.Engine.Answer(ctx, runID, taskID, text); err != nil {
		return runError("send the answer", err)
	}
	return nil
}

// History returns one page of past runs.
func (a *App) History(q store.HistoryQuery) (view.HistoryPage, error) {
	ctx, cancel := runCtx()
	defer cancel()
	page, err := a.Store.Runs(ctx, q)
	if err != nil {
		if errors.Is(err, store.ErrInvalid) {
			return view.HistoryPage{}, errors.New(sentence(strings.TrimSuffix(err.Error(), ": "+store.ErrInvalid.Error())))
		}
		return view.HistoryPage{}, runError("read the history", err)
	}
	return view.HistoryPageOf(page), nil
}

// DeleteRun removes a finished run from the history.
func (a *App) DeleteRun(runID string) error {
	for _, id := range a.Engine.Active() {
		if id == runID {
			return errors.New("This run is still active: cancel it before deleting it.")
		}
	}
	ctx, cancel := runCtx()
	defer cancel()
	if err := a.Store.DeleteRun(ctx, runID); err != nil {
		return runError("delete the run", err)
	}
	return nil
}

// Inbox returns everything that waits for the user across active runs.
func (a *App) Inbox() ([]inbox.Item, error) {
	ctx, cancel := runCtx()
	defer cancel()
	var host inbox.Sessions // the main sessions' prompts come from the host
	if a.Hosts != nil {
		host = a.Hosts
	}
	items, err := inbox.Collect(ctx, a.Engine, host)
	if err != nil {
		return nil, runError("read the inbox", err)
	}
	return items, nil
}
