// Package runledger is a run's ledger (Ledger): its changes stored with
// their event rows and only then emitted, the interruption of a run whose
// changes cannot be stored, and the run's lock (one process drives a run
// at a time). It knows what an event carries (Payload), not what it says.
package runledger

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/baton-app/baton/backend/owner"
	"github.com/baton-app/baton/backend/reconnect"
	"github.com/baton-app/baton/backend/runstatus"
	"github.com/baton-app/baton/backend/store"
)

// EventStatusChanged is the event of a run's new status (seed 002).
const EventStatusChanged = "orchestrator:statusChanged"

// Committer is what the ledger needs of the store (*store.Store).
type Committer interface {
	CreateRun(ctx context.Context, r store.Run, events ...store.Event) error
	Commit(ctx context.Context, runID string, c store.Change) error
	Interrupt(ctx context.Context, runID, reason string, ev store.Event) error
	TakeLock(ctx context.Context, l store.Lock, stale func(store.Lock) bool) error
	ReleaseLock(ctx context.Context, l store.Lock) error
}

// Event is one event of a change: its row is stored with the change, and
// it is emitted once the change is stored.
type Event struct {
	Name string
	P    Payload
}

// Emitter receives every event after the change it describes is committed.
// The desktop app forwards them with runtime.EventsEmit. Emit is called from
// the run's own goroutine: it must not block, and must not call the Engine
// (hand the event to another goroutine for that).
type Emitter interface {
	Emit(name string, payload Payload)
}

// EmitterFunc adapts a function to Emitter.
type EmitterFunc func(name string, payload Payload)

// Emit implements Emitter.
func (f EmitterFunc) Emit(name string, payload Payload) { f(name, payload) }

// Payload is what every event carries: the run's id and status, and the
// worker it is about, if any. Progress events carry only what changed.
type Payload struct {
	RunID   string        `json:"runId"`
	Status  string        `json:"status"`
	Phase   string        `json:"phase,omitempty"`
	TaskID  string        `json:"taskId,omitempty"`
	Message string        `json:"message,omitempty"`
	Worker  *store.Worker `json:"worker,omitempty"`
	// Workers carries coalesced worker progress.
	Workers []store.Worker `json:"workers,omitempty"`
	// Run carries counters and totals on run-level events.
	Run *store.Run `json:"run,omitempty"`
	// Problems lists what is wrong with a task list.
	Problems []string `json:"problems,omitempty"`
	// Skipped names tasks skipped because of this event.
	Skipped []string `json:"skipped,omitempty"`
	// Tasks and Groups carry the proposed plan on tasksReady.
	Tasks  []store.Task `json:"tasks,omitempty"`
	Groups [][]string   `json:"groups,omitempty"`
	// Reconnecting is set on EventReconnecting.
	Reconnecting *reconnect.Reconnecting `json:"reconnecting,omitempty"`
	// ResumesAt is when a run waiting for a limit goes on; Limit is the
	// kind of limit (limit events).
	ResumesAt *time.Time `json:"resumesAt,omitempty"`
	Limit     string     `json:"limit,omitempty"`
	// Tool is the main session's tool call that runs now, on
	// orchestrator:progress (nil: none; Message is its latest action).
	Tool *store.RunningTool `json:"tool,omitempty"`
}

// Ledger writes a run's changes to the store, each in one transaction with
// the rows of the events that describe it, and emits the events only after.
// It is the one way a run's durable state changes: the run's creation, each
// step's change, Apply and Discard of its branch, and the interruption that
// stops it.
//
// The runner edits its working state and hands the result to the ledger;
// nothing outside the runner sees that state before the ledger has stored
// it. A commit that fails breaks the ledger: every later commit is refused
// with the same error, and the loop stops the run as soon as it sees it
// (Halted), dropping the working state that ran ahead. Restore then takes
// the run up from what the store holds. A failed commit is never ignored.
type Ledger struct {
	store Committer
	emit  func(name string, p Payload)
	runID string
	log   *slog.Logger
	err   error
	// interrupted: the run was stopped as interrupted (Interrupt).
	interrupted bool
}

// New is the ledger of run runID in st; emit sends its events.
func New(st Committer, emit func(name string, p Payload), runID string, log *slog.Logger) *Ledger {
	return &Ledger{store: st, emit: emit, runID: runID, log: log}
}

// stamp completes the payloads of events with the run row after the change:
// its id, status and phase, and on orchestrator events the row itself.
func (l *Ledger) stamp(run *store.Run, events []Event) ([]store.Event, error) {
	out := make([]store.Event, 0, len(events))
	for i := range events {
		events[i].P.RunID = l.runID
		if run != nil {
			if events[i].P.Run == nil && strings.HasPrefix(events[i].Name, "orchestrator:") {
				rc := *run
				events[i].P.Run = &rc
			}
			events[i].P.Status = run.Status
			events[i].P.Phase = run.Phase
		}
		pj, err := json.Marshal(events[i].P)
		if err != nil {
			return nil, fmt.Errorf("event %s: %w", events[i].Name, err)
		}
		out = append(out, store.Event{RunID: l.runID, TaskID: events[i].P.TaskID, Name: events[i].Name, Payload: pj})
	}
	return out, nil
}

// create stores the new run with the rows of events, then emits them.
func (l *Ledger) Create(ctx context.Context, run store.Run, events ...Event) error {
	rows, err := l.stamp(&run, events)
	if err != nil {
		return fmt.Errorf("create run %s: %w", l.runID, err)
	}
	if err := l.store.CreateRun(ctx, run, rows...); err != nil {
		return err
	}
	l.send(events)
	return nil
}

// commit stores change c (whose Run is the run row after the change) with
// the rows of events, then emits them. The events carry the run's status
// and phase after the change; orchestrator events also the run row.
func (l *Ledger) Commit(ctx context.Context, c store.Change, events ...Event) error {
	if l.err != nil {
		return l.err
	}
	rows, err := l.stamp(c.Run, events)
	if err != nil {
		return l.Refuse(fmt.Errorf("save run %s: %w", l.runID, err))
	}
	c.Events = append(c.Events, rows...)
	if err := l.store.Commit(context.WithoutCancel(ctx), l.runID, c); err != nil {
		return l.Refuse(fmt.Errorf("save run %s: %w", l.runID, err))
	}
	l.send(events)
	return nil
}

func (l *Ledger) send(events []Event) {
	for _, e := range events {
		l.emit(e.Name, e.P)
	}
}

// refuse breaks the ledger with err: a change that cannot be stored, or
// working state that cannot be written down.
func (l *Ledger) Refuse(err error) error {
	l.err = err
	l.log.Error("a change of the run could not be saved; the run stops and is taken up again from the store", "err", err)
	return err
}

// broken returns the error of the commit that failed (nil while none did).
func (l *Ledger) Broken() error { return l.err }

// halted reports whether the run (its row, run) must stop because a change
// could not be saved (refuse logged it; the run stops as interrupted). Any
// other error of a step is logged, and the step goes on.
func (l *Ledger) Halted(run *store.Run, err error) bool {
	if l.err != nil {
		l.Interrupt(*run)
		return true
	}
	if err != nil {
		l.log.Warn("step", "err", err)
	}
	return false
}

// interruptAttempts is how many times interrupt tries to store the
// interruption.
const interruptAttempts = 5

// interrupt runs once, after the ledger broke: the store stayed unwritable
// through its retries, so the run (its stored row, run) stops as
// interrupted with the reason. Only the status, the reason and one event
// row are stored (store.Interrupt), so what was stored before stays true;
// the working state that ran ahead is dropped and Resume takes the run up
// from the store. When even that cannot be stored, the stored run keeps its
// status and Restore takes it up.
func (l *Ledger) Interrupt(run store.Run) {
	if l.interrupted || l.err == nil {
		return
	}
	l.interrupted = true
	reason := "Baton could not save the run's progress, so the run stopped; resume it when the database is writable again. " + l.err.Error()
	p := Payload{RunID: l.runID, Status: runstatus.RunInterrupted.String(), Phase: run.Phase, Message: reason}
	pj, err := json.Marshal(p)
	if err != nil {
		l.log.Error("the run could not be marked interrupted; Restore takes it up from the store", "err", err)
		return
	}
	// Each attempt waits out the store's own retry window; a few more give a
	// store that was locked for long a last chance to say why the run stopped.
	for range interruptAttempts {
		if err = l.store.Interrupt(context.Background(), l.runID, reason, store.Event{Name: EventStatusChanged, Payload: pj}); err == nil {
			break
		}
	}
	if err != nil {
		l.log.Error("the run could not be marked interrupted either; Restore takes it up from the store", "err", err)
		return
	}
	l.emit(EventStatusChanged, p)
}

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
func (l *Ledger) Lock(ctx context.Context, o owner.Owner) error {
	err := l.store.TakeLock(ctx, lockOf(l.runID, o), stale)
	var le *store.LockedError
	if errors.As(err, &le) {
		return &owner.DrivenError{RunID: l.runID, Owner: OwnerOf(le.Holder)}
	}
	return err
}

// unlock lets go of the ledger's run, when o still holds it.
func (l *Ledger) Unlock(o owner.Owner) {
	if err := l.store.ReleaseLock(context.Background(), lockOf(l.runID, o)); err != nil {
		l.log.Warn("let go of the run", "err", err)
	}
}
