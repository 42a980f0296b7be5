package engine

import (
	"context"
	"errors"

	"github.com/baton-app/baton/backend/owner"
	"github.com/baton-app/baton/backend/store"
)

// One process drives a run at a time: the engine takes a run's lock (the
// store's run_locks, through the run's ledger) before its loop starts, a
// new run's and a restored one's alike, and lets go of it when the loop
// ends. A lock whose process is gone is taken over; a run another live
// process drives is not taken up, and the error says which process it is.

// ErrDriven: another process (Baton's window, a "baton run") drives the
// run. A *DrivenError names it (backend/owner).
var ErrDriven = owner.ErrDriven

// DrivenError is a run that Owner, another process, drives.
type DrivenError = owner.DrivenError

// lockOf is the lock of run runID for owner o.
func lockOf(runID string, o owner.Owner) store.Lock {
	return store.Lock{RunID: runID, PID: o.PID, Start: o.Start, Face: o.Face, Machine: o.Machine}
}

// OwnerOf is the process a stored lock names.
func OwnerOf(l store.Lock) owner.Owner {
	return owner.Owner{PID: l.PID, Start: l.Start, Face: l.Face, Machine: l.Machine}
}

// stale reports whether the process of a lock is gone.
func stale(l store.Lock) bool { return !OwnerOf(l).Alive() }

// lock makes o the process that drives the ledger's run; a run another
// live process drives is a *DrivenError.
func (l *ledger) lock(ctx context.Context, o owner.Owner) error {
	err := l.store.TakeLock(ctx, lockOf(l.runID, o), stale)
	var le *store.LockedError
	if errors.As(err, &le) {
		return &DrivenError{RunID: l.runID, Owner: OwnerOf(le.Holder)}
	}
	return err
}

// unlock lets go of the ledger's run, when o still holds it.
func (l *ledger) unlock(o owner.Owner) {
	if err := l.store.ReleaseLock(context.Background(), lockOf(l.runID, o)); err != nil {
		l.log.Warn("let go of the run", "err", err)
	}
}

// Owner is the process this engine drives runs as.
func (e *Engine) Owner() owner.Owner { return e.owner }

// Drivers returns, by run id, the live process that drives each run that
// has one (this engine's own process included). A lock whose process is
// gone is left out: nobody drives that run.
func (e *Engine) Drivers(ctx context.Context) (map[string]owner.Owner, error) {
	locks, err := e.store.Locks(ctx)
	if err != nil {
		return nil, err
	}
	out := make(map[string]owner.Owner, len(locks))
	for id, l := range locks {
		if o := OwnerOf(l); o.Same(e.owner) || o.Alive() {
			out[id] = o
		}
	}
	return out, nil
}
