package store

import (
	"context"
	"errors"
	"testing"
	"time"
)

// One process at a time drives a run: the same process renews its lock,
// another live one is refused with the holder, a stale lock is taken over,
// a release lets go only of one's own lock, and a run that finishes or is
// deleted drops it.
func TestRunLocks(t *testing.T) {
	t.Parallel()
	s, _ := openTest(t)
	ctx := context.Background()
	if err := s.CreateRun(ctx, newRun("r1", time.Now())); err != nil {
		t.Fatal(err)
	}
	window := Lock{RunID: "r1", PID: 100, Start: "5", Face: "window", Machine: "m"}
	terminal := Lock{RunID: "r1", PID: 200, Start: "9", Face: "terminal", Machine: "m"}
	alive := func(Lock) bool { return false }
	dead := func(Lock) bool { return true }
	if err := s.TakeLock(ctx, window, alive); err != nil {
		t.Fatal(err)
	}
	if err := s.TakeLock(ctx, window, alive); err != nil {
		t.Fatalf("renewing one's own lock: %v", err)
	}
	var le *LockedError
	if err := s.TakeLock(ctx, terminal, alive); !errors.As(err, &le) || le.Holder.PID != 100 || le.Holder.Face != "window" {
		t.Fatalf("taking a live process's lock: %v", err)
	}
	if err := s.ReleaseLock(ctx, terminal); err != nil {
		t.Fatal(err)
	}
	if locks, _ := s.Locks(ctx); locks["r1"].PID != 100 {
		t.Fatalf("another process's release dropped the lock: %+v", locks)
	}
	if err := s.TakeLock(ctx, terminal, dead); err != nil {
		t.Fatalf("taking over a stale lock: %v", err)
	}
	locks, err := s.Locks(ctx)
	if err != nil || locks["r1"].PID != 200 || locks["r1"].Since.IsZero() {
		t.Fatalf("locks after the take-over: %+v, %v", locks, err)
	}
	if err := s.ReleaseLock(ctx, terminal); err != nil {
		t.Fatal(err)
	}
	if locks, _ := s.Locks(ctx); len(locks) != 0 {
		t.Fatalf("locks after the release: %+v", locks)
	}
	if err := s.TakeLock(ctx, window, alive); err != nil {
		t.Fatal(err)
	}
	// A run that finishes is driven by nobody, whoever held it.
	run, err := s.Run(ctx, "r1")
	if err != nil {
		t.Fatal(err)
	}
	run.Status = "cancelled"
	if err := s.Commit(ctx, "r1", Change{Run: &run}); err != nil {
		t.Fatal(err)
	}
	if locks, _ := s.Locks(ctx); len(locks) != 0 {
		t.Fatalf("a finished run's lock stayed: %+v", locks)
	}
	if err := s.TakeLock(ctx, window, alive); err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteRun(ctx, "r1"); err != nil {
		t.Fatal(err)
	}
	if locks, _ := s.Locks(ctx); len(locks) != 0 {
		t.Fatalf("a deleted run's lock stayed: %+v", locks)
	}
}
