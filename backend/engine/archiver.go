package engine

import (
	"context"
	"log/slog"
	"sync"

	"github.com/baton-app/baton/backend/hostguard"
	"github.com/baton-app/baton/backend/session"
)

// archiver ends the sessions of a run's workers on the host: at once (stop,
// discard), or in the background after the step's commits for workers that
// reported (add, flush): archiving is a round trip to the host that must
// not delay the next detection. The run waits for it before it counts as
// finished.
type archiver struct {
	host    *hostguard.Host
	untrack func(session.ID)
	log     *slog.Logger
	pending []session.ID
	running sync.WaitGroup
}

// add puts a session on the list of the next flush.
func (a *archiver) add(id string) {
	if id != "" {
		a.pending = append(a.pending, session.ID(id))
	}
}

// flush starts archiving the sessions added since the last flush.
func (a *archiver) flush(ctx context.Context) {
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

// wait waits for the archiving started.
func (a *archiver) wait() { a.running.Wait() }

// stop interrupts and archives the session of worker ws, if it has one that
// may still run.
func (a *archiver) stop(ctx context.Context, ws *workerState) {
	if ws.w.SessionID == "" || (ws.status != WorkerRunning && ws.status != WorkerPaused &&
		ws.status != WorkerSpawning && ws.status != WorkerTimeout) {
		return
	}
	id := session.ID(ws.w.SessionID)
	if err := a.host.Interrupt(ctx, id); err != nil {
		a.log.Debug("interrupt worker session", "task", ws.w.TaskID, "err", err)
	}
	if err := a.host.Archive(ctx, id); err != nil {
		a.log.Debug("archive worker session", "task", ws.w.TaskID, "err", err)
	}
	a.untrack(id)
}

// discard interrupts and archives session id, started for a worker that no
// longer wants it (cancelled or retried while it started).
func (a *archiver) discard(ctx context.Context, id session.ID) {
	if err := a.host.Interrupt(ctx, id); err != nil {
		a.log.Debug("interrupt a session started too late", "session", id, "err", err)
	}
	if err := a.host.Archive(ctx, id); err != nil {
		a.log.Debug("archive a session started too late", "session", id, "err", err)
	}
}
