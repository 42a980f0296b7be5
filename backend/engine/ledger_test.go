package engine

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/baton-app/baton/backend/runledger"
	"github.com/baton-app/baton/backend/store"
)

// commits records the changes it is given and fails while fail is set.
type commits struct {
	next    runledger.Committer
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
	if err := h.eng.do(ctx, id, func(ctx context.Context, r *runner) error {
		r.ledger = runledger.New(c, r.e.emit, r.run.ID, r.log)
		return nil
	}); err != nil {
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
