package engine

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/baton-app/baton/backend/owner"
	"github.com/baton-app/baton/backend/store"
)

// commits records the changes it is given and fails while fail is set.
type commits struct {
	next    committer
	fail    atomic.Bool
	changes []store.Change
}

func (c *commits) CreateRun(ctx context.Context, r store.Run, events ...store.Event) error {
	return c.next.CreateRun(ctx, r, events...)
}

func (c *commits) Interrupt(ctx context.Context, runID, reason string, ev store.Event) error {
	return c.next.Interrupt(ctx, runID, reason, ev)
}

func (c *commits) TakeLock(ctx context.Context, l store.Lock, stale func(store.Lock) bool) error {
	return c.next.TakeLock(ctx, l, stale)
}

func (c *commits) ReleaseLock(ctx context.Context, l store.Lock) error {
	return c.next.ReleaseLock(ctx, l)
}

func (c *commits) Commit(ctx context.Context, runID string, ch store.Change) error {
	if c.fail.Load() {
		return errBoom
	}
	c.changes = append(c.changes, ch)
	if c.next == nil {
		return nil
	}
	return c.next.Commit(ctx, runID, ch)
}

func TestLedgerEmitsOnlyWhatItStored(t *testing.T) {
	t.Parallel()
	c := &commits{}
	var emitted []Payload
	l := &ledger{store: c, emit: func(name string, p Payload) { emitted = append(emitted, p) }, runID: "r1", log: quiet}
	run := store.Run{ID: "r1", Status: "running", Phase: "workerExecution"}
	err := l.commit(context.Background(), store.Change{Run: &run},
		event{name: EventPhaseChanged, p: Payload{RunID: "r1"}}, event{name: EventWorkerStarted, p: Payload{RunID: "r1", TaskID: "a"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.changes) != 1 || len(c.changes[0].Events) != 2 || c.changes[0].Events[1].TaskID != "a" {
		t.Fatalf("stored %+v", c.changes)
	}
	if len(emitted) != 2 || emitted[0].Status != "running" || emitted[0].Phase != "workerExecution" ||
		emitted[0].Run == nil || emitted[1].Run != nil {
		t.Fatalf("emitted %+v", emitted)
	}

	c.fail.Store(true)
	err = l.commit(context.Background(), store.Change{Run: &run}, event{name: EventPaused, p: Payload{RunID: "r1"}})
	if !errors.Is(err, errBoom) || !errors.Is(l.broken(), errBoom) {
		t.Fatalf("failed commit = %v, broken = %v", err, l.broken())
	}
	// Broken for good: a later commit is refused even when the store would
	// take it, and nothing is emitted.
	c.fail.Store(false)
	if err := l.commit(context.Background(), store.Change{Run: &run}, event{name: EventResumed, p: Payload{RunID: "r1"}}); !errors.Is(err, errBoom) {
		t.Fatalf("commit after the failure = %v", err)
	}
	if len(c.changes) != 1 || len(emitted) != 2 {
		t.Fatalf("after the failure: %d changes stored, %d events emitted", len(c.changes), len(emitted))
	}
}

// A change the store refuses stops the run instead of letting its memory
// run ahead of the store; Restore takes it up from what was stored.
func TestFailedCommitStopsTheRunForRestore(t *testing.T) {
	t.Parallel()
	tasks := plan(planned{"a", 5, nil})
	h := newHarness(t, testTemplate(nil), scripted(tasks, func(h *fakeHost, s *fakeSession, task string, _ bool) bool {
		return true // keep working
	}), true)
	id := h.create()
	ctx := context.Background()
	if err := h.eng.Start(ctx, id); err != nil {
		t.Fatal(err)
	}
	h.until("a running", func() bool { return h.workers(id)["a"].Status == "running" })
	c := &commits{next: h.st}
	c.fail.Store(true)
	if err := h.eng.do(ctx, id, func(ctx context.Context, r *runner) error { r.ledger.store = c; return nil }); err != nil {
		t.Fatal(err)
	}
	// The Pause's change is refused, unless a change of the run's own loop
	// (its lock kept fresh, a progress tick) was refused first and the run
	// already stopped.
	if err := h.eng.Pause(ctx, id); !errors.Is(err, errBoom) && !errors.Is(err, ErrIllegalTransition) {
		t.Fatalf("Pause with a failing store = %v", err)
	}
	h.until("the run stopped", func() bool { return len(h.eng.Active()) == 0 })
	// The pause was never stored; the run is interrupted, to resume in the
	// status it was stored in.
	if s := h.status(id); s != "interrupted" {
		t.Fatalf("stored status %s, want interrupted (the pause was never stored)", s)
	}
	if run, _ := h.st.Run(ctx, id); run.ResumeStatus != "running" || !strings.Contains(run.Message, errBoom.Error()) {
		t.Fatalf("interrupted run: resume %q, message %q", run.ResumeStatus, run.Message)
	}
	// Resume takes the interrupted run up from the store (as the window's
	// Resume button does, without a restart) and continues it.
	if err := h.eng.Resume(ctx, id); err != nil {
		t.Fatal(err)
	}
	if len(h.eng.Active()) != 1 {
		t.Fatalf("Resume did not take the run up again: active %v", h.eng.Active())
	}
	if s := h.status(id); s != "running" {
		t.Fatalf("status after Resume = %s, want running", s)
	}
	if err := h.eng.Pause(ctx, id); err != nil {
		t.Fatal(err)
	}
	if s := h.status(id); s != "paused" {
		t.Errorf("status after the restored run's pause = %s", s)
	}
	if n := h.host.workerStarts()["a"]; n != 1 {
		t.Errorf("a started %d times", n)
	}
}

// lockStore holds the database's write lock from another connection, as
// another process would, until release is called. It waits for a write
// of the engine in progress (the engine writes while its workers run).
func lockStore(t *testing.T, path string) (release func()) {
	t.Helper()
	db, err := sql.Open("sqlite3", "file:"+path+"?_busy_timeout=5000")
	if err != nil {
		t.Fatal(err)
	}
	conn, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.ExecContext(context.Background(), "BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	release = func() {
		once.Do(func() {
			_, _ = conn.ExecContext(context.Background(), "ROLLBACK")
			_ = conn.Close()
			_ = db.Close()
		})
	}
	t.Cleanup(release)
	return release
}

// A real SQLite file locked by another connection: a change is retried
// until the lock is gone; when the lock outlasts the store's retries, the
// run stops as interrupted with the reason, the change that failed is not
// stored, and Resume continues the run.
func TestLockedStore(t *testing.T) {
	tasks := plan(planned{"a", 5, nil})
	keepWorking := scripted(tasks, func(h *fakeHost, s *fakeSession, task string, _ bool) bool { return true })
	ctx := context.Background()

	t.Run("waited out", func(t *testing.T) {
		h := newHarness(t, testTemplate(nil), keepWorking, true)
		h.close()
		h.storeOpts = []store.Option{store.WithRetry(50*time.Millisecond, 20*time.Second)}
		h.open()
		id := h.create()
		if err := h.eng.Start(ctx, id); err != nil {
			t.Fatal(err)
		}
		h.until("a running", func() bool { return h.workers(id)["a"].Status == "running" })
		release := lockStore(t, h.path)
		time.AfterFunc(700*time.Millisecond, release)
		if err := h.eng.Pause(ctx, id); err != nil {
			t.Fatalf("Pause while another writer held the database for 0.7 s: %v", err)
		}
		if run, _ := h.st.Run(ctx, id); run.Status != "paused" {
			t.Fatalf("stored %s, want paused", run.Status)
		}
	})

	t.Run("interrupted", func(t *testing.T) {
		h := newHarness(t, testTemplate(nil), keepWorking, true)
		h.close()
		h.storeOpts = []store.Option{store.WithRetry(20*time.Millisecond, 300*time.Millisecond)}
		h.open()
		id := h.create()
		if err := h.eng.Start(ctx, id); err != nil {
			t.Fatal(err)
		}
		h.until("a running", func() bool { return h.workers(id)["a"].Status == "running" })
		release := lockStore(t, h.path)
		time.AfterFunc(time.Second, release)
		err := h.eng.Pause(ctx, id)
		if err == nil || !strings.Contains(err.Error(), "locked") {
			t.Fatalf("Pause under a lock held past the retries = %v", err)
		}
		h.until("the run stopped", func() bool { return len(h.eng.Active()) == 0 })
		run, err := h.st.Run(ctx, id)
		if err != nil || run.Status != "interrupted" || run.ResumeStatus != "running" || !strings.Contains(run.Message, "locked") {
			t.Fatalf("stored run: status %q, resume %q, message %q, %v", run.Status, run.ResumeStatus, run.Message, err)
		}
		if h.rec.count(EventStatusChanged) == 0 {
			t.Error("no event told that the run was interrupted")
		}
		if w := h.workers(id)["a"]; w.Status != "running" {
			t.Errorf("worker a stored as %s", w.Status)
		}
		if err := h.eng.RestoreRun(ctx, id); err != nil {
			t.Fatal(err)
		}
		if err := h.eng.Resume(ctx, id); err != nil {
			t.Fatal(err)
		}
		if s := h.status(id); s != "running" {
			t.Fatalf("after Resume: %s", s)
		}
		if n := h.host.workerStarts()["a"]; n != 1 {
			t.Errorf("a started %d times", n)
		}
	})
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
	l := &ledger{store: m, emit: func(string, Payload) {}, runID: "r1", log: quiet}
	me := owner.Self(owner.Window)
	if err := l.lock(context.Background(), me); err != nil {
		t.Fatal(err)
	}
	other := owner.Owner{PID: os.Getppid(), Face: owner.Terminal, Machine: me.Machine} // alive: it started the test
	var de *DrivenError
	if err := (&ledger{store: m, runID: "r1", log: quiet}).lock(context.Background(), other); !errors.As(err, &de) ||
		!errors.Is(err, ErrDriven) || de.Owner.PID != me.PID || !strings.Contains(err.Error(), "driven by Baton's window (process ") {
		t.Fatalf("locking a run another process drives: %v", err)
	}
	l.unlock(me)
	if err := (&ledger{store: m, runID: "r1", log: quiet}).lock(context.Background(), other); err != nil {
		t.Fatalf("locking a run nobody drives: %v", err)
	}
	gone := owner.Owner{PID: 1 << 22, Machine: me.Machine} // no such process
	m.locks["r1"] = lockOf("r1", gone)
	if err := l.lock(context.Background(), me); err != nil {
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
	l := &ledger{store: m, emit: func(name string, p Payload) { emitted = append(emitted, name+" "+p.RunID+" "+p.Status) }, runID: "r1", log: quiet}
	run := store.Run{ID: "r1", Status: "created"}
	if err := l.create(context.Background(), run, newEvent(EventCreated, nil, "")); err != nil {
		t.Fatal(err)
	}
	if len(m.created) != 1 || len(m.events) != 1 || m.events[0].Name != EventCreated || !strings.Contains(string(m.events[0].Payload), `"run":{"id":"r1"`) ||
		strings.Join(emitted, ",") != EventCreated+" r1 created" {
		t.Fatalf("created %+v, events %+v, emitted %v", m.created, m.events, emitted)
	}
	m.fail = errBoom
	if err := l.create(context.Background(), run, newEvent(EventCreated, nil, "")); !errors.Is(err, errBoom) || len(emitted) != 1 {
		t.Fatalf("a refused creation = %v, emitted %v", err, emitted)
	}
	m.fail = nil

	bad := newEvent(EventWorkerStarted, nil, "")
	bad.p.Worker = &store.Worker{TaskID: "a", Waiting: &store.Permission{RequestID: "q", Input: []byte("{")}}
	if err := l.commit(context.Background(), store.Change{Run: &run}, bad); err == nil || l.broken() == nil {
		t.Fatalf("a payload that cannot be written = %v, broken %v", err, l.broken())
	}
	if err := l.commit(context.Background(), store.Change{Run: &run}); !errors.Is(err, l.broken()) {
		t.Errorf("a commit after the failure = %v", err)
	}
	l.interrupt(store.Run{ID: "r1", Phase: "workerExecution"})
	l.interrupt(store.Run{ID: "r1"})
	if len(m.interrupts) != 1 || !strings.Contains(m.interrupts[0], "Baton could not save the run's progress") ||
		emitted[len(emitted)-1] != EventStatusChanged+" r1 interrupted" {
		t.Errorf("interrupts %q, emitted %v", m.interrupts, emitted)
	}
}
