package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"

	"github.com/baton-app/baton/backend/store"
)

// committer is what the ledger needs of the store (*store.Store).
type committer interface {
	Commit(ctx context.Context, runID string, c store.Change) error
}

// event is one event of a change: its row is stored with the change, and it
// is emitted once the change is stored.
type event struct {
	name string
	p    Payload
}

// ledger writes a run's changes to the store, each in one transaction with
// the rows of the events that describe it, and emits the events only after.
//
// The runner edits its working state and hands the result to the ledger;
// nothing outside the runner sees that state before the ledger has stored
// it. A commit that fails breaks the ledger: every later commit is refused
// with the same error, and the loop stops the run as soon as it sees it
// (broken), dropping the working state that ran ahead. Restore then takes
// the run up from what the store holds. A failed commit is never ignored.
type ledger struct {
	store committer
	emit  func(name string, p Payload)
	runID string
	log   *slog.Logger
	err   error
}

// commit stores change c (whose Run is the run row after the change) with
// the rows of events, then emits them. The events carry the run's status
// and phase after the change; orchestrator events also the run row.
func (l *ledger) commit(ctx context.Context, c store.Change, events ...event) error {
	if l.err != nil {
		return l.err
	}
	for i := range events {
		if c.Run != nil {
			if events[i].p.Run == nil && strings.HasPrefix(events[i].name, "orchestrator:") {
				rc := *c.Run
				events[i].p.Run = &rc
			}
			events[i].p.Status = c.Run.Status
			events[i].p.Phase = c.Run.Phase
		}
		pj, err := json.Marshal(events[i].p)
		if err != nil {
			return l.broke(fmt.Errorf("save run %s: event %s: %w", l.runID, events[i].name, err))
		}
		c.Events = append(c.Events, store.Event{RunID: l.runID, TaskID: events[i].p.TaskID, Name: events[i].name, Payload: pj})
	}
	if err := l.store.Commit(context.WithoutCancel(ctx), l.runID, c); err != nil {
		return l.broke(fmt.Errorf("save run %s: %w", l.runID, err))
	}
	for _, e := range events {
		l.emit(e.name, e.p)
	}
	return nil
}

func (l *ledger) broke(err error) error {
	l.err = err
	l.log.Error("a change of the run could not be saved; the run stops and is taken up again from the store", "err", err)
	return err
}

// broken returns the error of the commit that failed (nil while none did).
func (l *ledger) broken() error { return l.err }
