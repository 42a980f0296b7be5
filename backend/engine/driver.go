package engine

import (
	"context"

	"github.com/baton-app/baton/backend/owner"
	"github.com/baton-app/baton/backend/runledger"
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

// OwnerOf is the process a stored lock names.
func OwnerOf(l store.Lock) owner.Owner { return runledger.OwnerOf(l) }

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
