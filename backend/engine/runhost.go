package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/baton-app/baton/backend/session"
	"github.com/baton-app/baton/backend/store"
)

// A run remembers the host that served it (store.Run.Host: its kind, the
// program's path and version or the endpoint), taken when the run starts.
// A run is taken up again (a resume, the restore after a restart) only on
// a host of the same kind: on another, RestoreRun refuses with an
// *OtherHostError that names the run's host, and Restore leaves the run
// as it is. MoveRun moves a run to the host in use when the user says so:
// the completed tasks and their reports stay; the sessions of the others,
// and the main session, start again there.

// EventHostMoved: the run moved to another host; the message says what
// stays and what starts again.
const EventHostMoved = "orchestrator:hostMoved"

// ErrOtherHost: the run ran on another kind of host than the one in use.
var ErrOtherHost = errors.New("the run ran on another session host")

// OtherHostError refuses to take a run up on another kind of host than the
// one it ran on.
type OtherHostError struct {
	RunID string
	// Ran is the host the run ran on; Now the host in use.
	Ran store.RunHost
	Now session.Identity
}

func (e *OtherHostError) Error() string {
	return fmt.Sprintf("run %s ran on %s, and Baton now uses %s; a run continues only on its own host. "+
		"Choose %s in Settings (or run baton run --resume %s, which uses it), or move the run here with baton run --resume %s --host %s",
		e.RunID, hostName(e.Ran), e.Now.Description, e.Ran.Label, e.RunID, e.RunID, e.Now.Short)
}

func (e *OtherHostError) Unwrap() error { return ErrOtherHost }

// hostName names a run's host as a person reads it.
func hostName(h store.RunHost) string {
	switch {
	case h.Description != "":
		return h.Description
	case h.Label != "":
		return h.Label
	}
	return h.Kind
}

// identifier is the host as it says which it is (nil: it does not).
func (e *Engine) identifier() session.Identifier {
	id, _ := e.host.Inner().(session.Identifier)
	return id
}

// hostRow is a host's identity as a run stores it.
func hostRow(id session.Identity) store.RunHost {
	return store.RunHost{Kind: id.Kind, Label: id.Label, Path: id.Path, Version: id.Version, Endpoint: id.Endpoint,
		Description: id.Description}
}

// identify stores with the run the host that serves it, once it is
// connected (the first prompt connects it).
func (r *runner) identify(ctx context.Context) {
	id := r.e.identifier()
	if id == nil {
		return
	}
	if ident, err := id.Identity(ctx); err == nil {
		r.run.Host = hostRow(ident)
	}
}

// otherHost refuses run when it ran on another kind of host than the one
// in use (nil: the same kind, or a run that did not record its host).
func (e *Engine) otherHost(run store.Run) error {
	id := e.identifier()
	if id == nil || run.Host.Kind == "" {
		return nil
	}
	if now := id.Current(); now.Kind != run.Host.Kind {
		return &OtherHostError{RunID: run.ID, Ran: run.Host, Now: now}
	}
	return nil
}

// Move is what moving a run to the host in use kept and starts again.
type Move struct {
	From store.RunHost `json:"from"`
	To   store.RunHost `json:"to"`
	// Kept are the completed tasks, whose reports stay; Restarted the
	// tasks whose sessions start again on the new host.
	Kept      []string `json:"kept"`
	Restarted []string `json:"restarted"`
	// Main: the main session starts again (it first reads the run so far).
	Main bool `json:"main"`
	// Message says all of it in sentences.
	Message string `json:"message"`
}

// MoveRun takes up an unfinished run on the host in use although it ran on
// another: the user asked for it. What the run did stays; the sessions of
// the tasks that had not completed and the main session start again on the
// new host (their conversations stay on the old one). A run that ran on
// this kind of host is simply taken up (RestoreRun), and the Move says
// nothing moved.
func (e *Engine) MoveRun(ctx context.Context, runID string) (Move, error) {
	if e.driving(runID) {
		return Move{}, fmt.Errorf("run %s is being driven here; it can move only when it is not: %w", runID, ErrIllegalTransition)
	}
	run, err := e.store.Run(ctx, runID)
	if errors.Is(err, store.ErrNotFound) {
		return Move{}, fmt.Errorf("run %s: %w", runID, ErrUnknownRun)
	}
	if err != nil {
		return Move{}, err
	}
	if store.Finished(run.Status) {
		return Move{}, fmt.Errorf("run %s is already %s and cannot be moved: %w", runID, run.Status, ErrIllegalTransition)
	}
	if e.otherHost(run) == nil {
		return Move{From: run.Host, To: run.Host}, e.restoreRun(ctx, run, nil)
	}
	id := e.identifier()
	to, err := id.Identity(ctx)
	if err != nil {
		return Move{}, fmt.Errorf("move run %s to %s: %w", runID, to.Description, err)
	}
	mv := &Move{From: run.Host, To: hostRow(to)}
	if err := e.restoreRun(ctx, run, mv); err != nil {
		return Move{}, err
	}
	return *mv, nil
}

// moveMessage says what a move kept and what starts again.
func (m *Move) moveMessage() string {
	var b strings.Builder
	fmt.Fprintf(&b, "The run moved from %s to %s.", hostName(m.From), hostName(m.To))
	if n := len(m.Kept); n > 0 {
		fmt.Fprintf(&b, " %s (%s) and %s stay.", countOf(n, "completed task", "completed tasks"), strings.Join(m.Kept, ", "),
			map[bool]string{true: "its report", false: "their reports"}[n == 1])
	}
	var again []string
	if n := len(m.Restarted); n > 0 {
		again = append(again, fmt.Sprintf("%s (%s)", countOf(n, "task", "tasks"), strings.Join(m.Restarted, ", ")))
	}
	if m.Main {
		again = append(again, "the main session (it first reads the run so far)")
	}
	if len(again) > 0 {
		fmt.Fprintf(&b, " Starting again there in new sessions: %s; their conversations stay on %s.", strings.Join(again, " and "), hostName(m.From))
	} else {
		b.WriteString(" Nothing had started that must start again.")
	}
	return b.String()
}

// countOf is "1 task" or "3 tasks".
func countOf(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
