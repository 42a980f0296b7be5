package engine

import (
	"context"
	"errors"
	"fmt"

	"github.com/baton-app/baton/backend/runhost"
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

// identifier is the host as it says which it is (nil: it does not).
func (e *Engine) identifier() session.Identifier {
	id, _ := e.host.Inner().(session.Identifier)
	return id
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
	mv := &Move{From: run.Host, To: runhost.Row(to)}
	if err := e.restoreRun(ctx, run, mv); err != nil {
		return Move{}, err
	}
	return *mv, nil
}

// The run's host (backend/runhost).
type (
	OtherHostError = runhost.OtherHostError
	Move           = runhost.Move
)

// ErrOtherHost: the run ran on another kind of host than the one in use.
var ErrOtherHost = runhost.ErrOtherHost

// countOf is "1 task" or "3 tasks".
func countOf(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
