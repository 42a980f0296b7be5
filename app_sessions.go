package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/baton-app/baton/backend/desktop"
	"github.com/baton-app/baton/backend/hosts"
	"github.com/baton-app/baton/backend/session"
	"github.com/baton-app/baton/backend/sessions"
	"github.com/baton-app/baton/backend/view"
)

const sessionCallTimeout = 60 * time.Second

// sessionError turns an error of the host manager into a sentence: one
// that says the host cannot be reached, or "Baton could not " + what.
func sessionError(err error, what string) error {
	var ce *hosts.ConnectError
	if errors.As(err, &ce) {
		return fmt.Errorf("Baton could not reach the session host (%s): %v. Check the host in Settings and use \"Test connection\".", ce.Label, ce.Err)
	}
	return fmt.Errorf("Baton could not %s: %v.", what, err)
}

func sessionCtx() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), sessionCallTimeout)
}

// ListSessions returns the host's sessions; hidden orchestrator workers only
// when includeHidden is true.
func (a *App) ListSessions(includeHidden bool) ([]view.SessionInfo, error) {
	ctx, cancel := sessionCtx()
	defer cancel()
	list, err := a.Hosts.List(ctx, includeHidden)
	if err != nil {
		return nil, sessionError(err, "list the sessions")
	}
	return view.SessionsOf(list), nil
}

// ReadSessionTranscript returns the whole transcript of session id.
func (a *App) ReadSessionTranscript(id string) (view.SessionTranscript, error) {
	if strings.TrimSpace(id) == "" {
		return view.SessionTranscript{}, errors.New("Choose a session first.")
	}
	ctx, cancel := sessionCtx()
	defer cancel()
	var (
		out    view.SessionTranscript
		cursor session.Cursor
	)
	for {
		batch, err := a.Hosts.Read(ctx, session.ID(id), cursor)
		if err != nil {
			return view.SessionTranscript{}, sessionError(err, "read the transcript of "+id)
		}
		items, skipped := sessions.Items(batch.Entries)
		if batch.Reset {
			out = view.SessionTranscript{}
		}
		out.Items = append(out.Items, view.TranscriptItemsOf(items)...)
		out.Skipped += skipped
		out.Total = batch.Total
		if len(batch.Entries) == 0 || batch.Next.Index >= batch.Total {
			break
		}
		cursor = batch.Next
	}
	if out.Items == nil {
		out.Items = []view.TranscriptItem{}
	}
	return out, nil
}

// SendToSession sends text to session id as the user.
func (a *App) SendToSession(id, text string) error {
	if strings.TrimSpace(id) == "" {
		return errors.New("Choose a session first.")
	}
	if strings.TrimSpace(text) == "" {
		return errors.New("Type a message to send.")
	}
	ctx, cancel := sessionCtx()
	defer cancel()
	if err := a.Hosts.Send(ctx, session.ID(id), text); err != nil {
		return sessionError(err, "send the message to "+id)
	}
	return nil
}

// StartSession starts a session in folder cwd with message as its first
// message, and returns its id. The folder is remembered among the recent ones.
func (a *App) StartSession(cwd, message string) (string, error) {
	cwd = strings.TrimSpace(cwd)
	if cwd == "" {
		return "", errors.New("Choose the folder the session works in.")
	}
	if err := desktop.CheckFolder(cwd); err != nil {
		return "", err
	}
	if strings.TrimSpace(message) == "" {
		return "", errors.New("Type the first message of the session.")
	}
	ctx, cancel := sessionCtx()
	defer cancel()
	id, err := a.Hosts.Start(ctx, session.StartOptions{Cwd: cwd, Message: message, Title: sessionTitle(message)})
	if err != nil {
		return "", sessionError(err, "start the session")
	}
	if _, err := a.Settings.AddRecentFolder(cwd); err != nil {
		slog.Warn("remember recent folder", "component", "app", "err", err)
	}
	return string(id), nil
}

// sessionTitle is the first line of message, shortened.
func sessionTitle(message string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(message), "\n")
	if r := []rune(line); len(r) > 60 {
		line = string(r[:59]) + "…"
	}
	return line
}

// PendingPermissions returns the permission prompts sessions wait on.
func (a *App) PendingPermissions() ([]view.PermissionPrompt, error) {
	ctx, cancel := sessionCtx()
	defer cancel()
	reqs, err := a.Hosts.Pending(ctx)
	if err != nil {
		return nil, sessionError(err, "read the pending permission prompts")
	}
	if a.Runs == nil {
		return view.PermissionPromptsOf(sessions.Permissions(reqs)), nil
	}
	// The prompts of active runs carry their run and suggested rules.
	prompts, err := a.Runs.Prompts(ctx, reqs)
	if err != nil {
		return nil, sessionError(err, "read the pending permission prompts")
	}
	return prompts, nil
}

// inRun answers requestID through its run, when an active run waits on it.
func (a *App) inRun(ctx context.Context, requestID string, d session.PermissionDecision) (bool, error) {
	if a.Runs == nil {
		return false, nil
	}
	return a.Runs.Respond(ctx, requestID, d)
}

// RespondPermission answers a permission prompt: "once", "always" or "deny".
func (a *App) RespondPermission(requestID, decision string) error {
	if strings.TrimSpace(requestID) == "" {
		return errors.New("That permission prompt has no id; refresh the list.")
	}
	d := session.PermissionDecision(decision)
	if !d.Valid() {
		return fmt.Errorf("%q is not an answer to a permission prompt: use Allow once, Always or Deny.", decision)
	}
	ctx, cancel := sessionCtx()
	defer cancel()
	// A prompt of an active run takes the run's path (the engine answers
	// it and logs it); any other session's goes to the host.
	if inRun, err := a.inRun(ctx, requestID, d); inRun {
		if err != nil {
			return runError("answer the permission prompt", err)
		}
		return nil
	}
	if err := a.Hosts.RespondPermission(ctx, requestID, d, nil); err != nil {
		return sessionError(err, "answer the permission prompt")
	}
	return nil
}
