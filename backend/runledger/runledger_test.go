package runledger

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"os"
	"strings"
	"testing"

	"github.com/baton-app/baton/backend/owner"
	"github.com/baton-app/baton/backend/store"
)

var (
	errBoom = errors.New("boom")
	quiet   = slog.New(slog.NewTextHandler(io.Discard, nil))
)

func TestLedgerEmitsOnlyWhatItStored(t *testing.T) {
	t.Parallel()
	c := &memStore{}
	var emitted []Payload
	l := New(c, func(name string, p Payload) { emitted = append(emitted, p) }, "r1", quiet)
	run := store.Run{ID: "r1", Status: "running", Phase: "workerExecution"}
	err := l.Commit(context.Background(), store.Change{Run: &run},
		Event{Name: "orchestrator:phaseChanged", P: Payload{RunID: "r1"}}, Event{Name: "worker:started", P: Payload{RunID: "r1", TaskID: "a"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.events) != 2 || c.events[1].TaskID != "a" {
		t.Fatalf("stored %+v", c.events)
	}
	if len(emitted) != 2 || emitted[0].Status != "running" || emitted[0].Phase != "workerExecution" ||
		emitted[0].Run == nil || emitted[1].Run != nil {
		t.Fatalf("emitted %+v", emitted)
	}

	c.fail = errBoom
	err = l.Commit(context.Background(), store.Change{Run: &run}, Event{Name: "orchestrator:paused", P: Payload{RunID: "r1"}})
	if !errors.Is(err, errBoom) || !errors.Is(l.Broken(), errBoom) {
		t.Fatalf("failed commit = %v, broken = %v", err, l.Broken())
	}
	// Broken for good: a later commit is refused even when the store would
	// take it, and nothing is emitted.
	c.fail = nil
	if err := l.Commit(context.Background(), store.Change{Run: &run}, Event{Name: "orchestrator:resumed", P: Payload{RunID: "r1"}}); !errors.Is(err, errBoom) {
		t.Fatalf("commit after the failure = %v", err)
	}
	if len(c.events) != 2 || len(emitted) != 2 {
		t.Fatalf("after the failure: %d event rows stored, %d events emitted", len(c.events), len(emitted))
	}
}

// memStore records what the ledger stores, and fails while fail is set.
type memStore struct {
	fail       error
	created    []store.Run
	events     []store.Event
	interrupts []string
	locks      map[string]store.Lock
}

func (m *memStore) CreateRun(ctx context.Context, r store.Run, events ...store.Event) error {
	if m.fail != nil {
		return m.fail
	}
	m.created = append(m.created, r)
	m.events = append(m.events, events...)
	return nil
}

func (m *memStore) Commit(ctx context.Context, runID string, c store.Change) error {
	if m.fail != nil {
		return m.fail
	}
	m.events = append(m.events, c.Events...)
	return nil
}

func (m *memStore) Interrupt(ctx context.Context, runID, reason string, ev store.Event) error {
	if m.fail != nil {
		return m.fail
	}
	m.interrupts = append(m.interrupts, reason)
	m.events = append(m.events, ev)
	return nil
}

// locks are the memStore's run locks by run id.
func (m *memStore) TakeLock(ctx context.Context, l store.Lock, stale func(store.Lock) bool) error {
	if m.fail != nil {
		return m.fail
	}
	if held, ok := m.locks[l.RunID]; ok && held.PID != l.PID && !stale(held) {
		return &store.LockedError{Holder: held}
	}
	if m.locks == nil {
		m.locks = map[string]store.Lock{}
	}
	m.locks[l.RunID] = l
	return nil
}

func (m *memStore) ReleaseLock(ctx context.Context, l store.Lock) error {
	if held, ok := m.locks[l.RunID]; ok && held.PID == l.PID {
		delete(m.locks, l.RunID)
	}
	return nil
}

// The ledger takes its run's lock for a process and lets go of it; a run a
// live other process drives is a DrivenError naming it, a lock whose
// process is gone is taken over.
func TestLedgerLock(t *testing.T) {
	t.Parallel()
	m := &memStore{}
	l := New(m, func(string, Payload) {}, "r1", quiet)
	me := owner.Self(owner.Window)
	if err := l.Lock(context.Background(), me); err != nil {
		t.Fatal(err)
	}
	other := owner.Owner{PID: os.Getppid(), Face: owner.Terminal, Machine: me.Machine} // alive: it started the test
	var de *owner.DrivenError
	if err := New(m, nil, "r1", quiet).Lock(context.Background(), other); !errors.As(err, &de) ||
		!errors.Is(err, owner.ErrDriven) || de.Owner.PID != me.PID || !strings.Contains(err.Error(), "driven by Baton's window (process ") {
		t.Fatalf("locking a run another process drives: %v", err)
	}
	l.Unlock(me)
	if err := New(m, nil, "r1", quiet).Lock(context.Background(), other); err != nil {
		t.Fatalf("locking a run nobody drives: %v", err)
	}
	gone := owner.Owner{PID: 1 << 22, Machine: me.Machine} // no such process
	m.locks["r1"] = lockOf("r1", gone)
	if err := l.Lock(context.Background(), me); err != nil {
		t.Fatalf("taking over a lock whose process is gone: %v", err)
	}
}

// A run's creation goes through the ledger like every change: its event
// row is stored with it and emitted after. A payload that cannot be written
// breaks the ledger as a failed commit does, and the interruption is
// stored once, with the reason.
func TestLedgerCreateRefuseInterrupt(t *testing.T) {
	t.Parallel()
	m := &memStore{}
	var emitted []string
	l := New(m, func(name string, p Payload) { emitted = append(emitted, name+" "+p.RunID+" "+p.Status) }, "r1", quiet)
	run := store.Run{ID: "r1", Status: "created"}
	if err := l.Create(context.Background(), run, Event{Name: "orchestrator:created"}); err != nil {
		t.Fatal(err)
	}
	if len(m.created) != 1 || len(m.events) != 1 || m.events[0].Name != "orchestrator:created" || !strings.Contains(string(m.events[0].Payload), `"run":{"id":"r1"`) ||
		strings.Join(emitted, ",") != "orchestrator:created r1 created" {
		t.Fatalf("created %+v, events %+v, emitted %v", m.created, m.events, emitted)
	}
	m.fail = errBoom
	if err := l.Create(context.Background(), run, Event{Name: "orchestrator:created"}); !errors.Is(err, errBoom) || len(emitted) != 1 {
		t.Fatalf("a refused creation = %v, emitted %v", err, emitted)
	}
	m.fail = nil

	bad := Event{Name: "worker:started"}
	bad.P.Worker = &store.Worker{TaskID: "a", Waiting: &store.Permission{RequestID: "q", Input: []byte("{")}}
	if err := l.Commit(context.Background(), store.Change{Run: &run}, bad); err == nil || l.Broken() == nil {
		t.Fatalf("a payload that cannot be written = %v, broken %v", err, l.Broken())
	}
	if err := l.Commit(context.Background(), store.Change{Run: &run}); !errors.Is(err, l.Broken()) {
		t.Errorf("a commit after the failure = %v", err)
	}
	l.Interrupt(store.Run{ID: "r1", Phase: "workerExecution"})
	l.Interrupt(store.Run{ID: "r1"})
	if len(m.interrupts) != 1 || !strings.Contains(m.interrupts[0], "Baton could not save the run's progress") ||
		emitted[len(emitted)-1] != EventStatusChanged+" r1 interrupted" {
		t.Errorf("interrupts %q, emitted %v", m.interrupts, emitted)
	}
}
