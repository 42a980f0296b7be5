// Package archiver ends the sessions of a run's workers on the host: at
// once (Stop, Discard), or in the background after the step's commits for
// workers that reported (Add, Flush): archiving is a round trip to the
// host that must not delay the next detection. The run waits for it
// (Wait) before it counts as finished.
package archiver

import (
	"context"
	"log/slog"
	"sync"

	"github.com/baton-app/baton/backend/session"
)

// Host is what the archiver needs of a session host.
type Host interface {
	Interrupt(ctx context.Context, id session.ID) error
	Archive(ctx context.Context, id session.ID) error
}

// Archiver ends a run's worker sessions; untrack tells the engine a
// session is no longer the run's.
type Archiver struct {
	host    Host
	untrack func(session.ID)
	log     *slog.Logger
	pending []session.ID
	running sync.WaitGroup
}

// New is the archiver of a run's sessions on host.
func New(host Host, untrack func(session.ID), log *slog.Logger) *Archiver {
	return &Archiver{host: host, untrack: untrack, log: log}
}

// Add puts a session on the list of the next flush.
func (a *Archiver) Add(id string) {
	if id != "" {
		a.pending = append(a.pending, session.ID(id))
	}
}

// Flush starts archiving the sessions added since the last flush.
func (a *Archiver) Flush(ctx context.Context) {
	for _, id := range a.pending {
		a.untrack(id)
		a.running.Add(1)
		go func() {
			defer a.running.Done()
			if err := a.host.Archive(ctx, id); err != nil {
				a.log.Debug("archive worker session", "session", id, "err", err)
			}
		}()
	}
	a.pending = nil
}

// Wait waits for the archiving started.
func (a *Archiver) Wait() { a.running.Wait() }

// Stop interrupts and archives session id of task's worker ("": none that
// may still run).
func (a *Archiver) Stop(ctx context.Context, id, task string) {
	if id == "" {
		return
	}
	a.end(ctx, session.ID(id), "task", task)
	a.untrack(session.ID(id))
}

// Discard interrupts and archives session id, started for a worker that no
// longer wants it (cancelled or retried while it started).
func (a *Archiver) Discard(ctx context.Context, id session.ID) {
	a.end(ctx, id, "session", id)
}

func (a *Archiver) end(ctx context.Context, id session.ID, who ...any) {
	if err := a.host.Interrupt(ctx, id); err != nil {
		a.log.Debug("interrupt worker session", append(who, "err", err)...)
	}
	if err := a.host.Archive(ctx, id); err != nil {
		a.log.Debug("archive worker session", append(who, "err", err)...)
	}
}
