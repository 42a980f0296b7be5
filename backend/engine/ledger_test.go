package engine

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"

	"github.com/baton-app/baton/backend/store"
)

// commits records the changes it is given and fails while fail is set.
type commits struct {
	next    committer
	fail    atomic.Bool
	changes []store.Change
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
	if err := h.eng.Pause(ctx, id); !errors.Is(err, errBoom) {
		t.Fatalf("Pause with a failing store = %v", err)
	}
	h.until("the run stopped", func() bool { return len(h.eng.Active()) == 0 })
	if err := h.eng.Resume(ctx, id); !errors.Is(err, ErrIllegalTransition) {
		t.Errorf("Resume of a stopped run = %v", err)
	}
	if s := h.status(id); s != "running" {
		t.Fatalf("stored status %s, want running (the pause was never stored)", s)
	}
	if n, err := h.eng.Restore(ctx); err != nil || n != 1 {
		t.Fatalf("Restore = %d, %v", n, err)
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
