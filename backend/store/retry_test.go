package store

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// lockFor holds the database's write lock from another connection, as
// another process would, until the returned channel is closed by release
// after d.
func lockFor(t *testing.T, path string, d time.Duration) <-chan struct{} {
	t.Helper()
	db, err := sql.Open("sqlite3", "file:"+path+"?_busy_timeout=1")
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
	done := make(chan struct{})
	go func() {
		defer close(done)
		time.Sleep(d)
		_, _ = conn.ExecContext(context.Background(), "ROLLBACK")
		_ = conn.Close()
		_ = db.Close()
	}()
	return done
}

// A commit that finds the database locked by another writer for longer than
// SQLite's busy timeout is retried until the lock is gone, and stores
// everything.
func TestCommitWaitsOutAnotherWriter(t *testing.T) {
	path := filepath.Join(t.TempDir(), "baton.db")
	s, err := Open(path, WithRetry(100*time.Millisecond, 20*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	r := newRun("r1", time.Unix(1000, 0))
	if err := s.CreateRun(ctx, r); err != nil {
		t.Fatal(err)
	}
	released := lockFor(t, path, 1500*time.Millisecond)
	r.Status = "completed"
	start := time.Now()
	err = s.Commit(ctx, "r1", Change{Run: &r, Tasks: []Task{{ID: "a", Title: "A"}}})
	<-released
	if err != nil {
		t.Fatalf("the commit gave up while another writer held the database: %v", err)
	}
	if time.Since(start) < time.Second {
		t.Fatalf("the commit did not wait for the lock (%s)", time.Since(start))
	}
	got, err := s.Run(ctx, "r1")
	if err != nil || got.Status != "completed" {
		t.Fatalf("stored %+v, %v", got, err)
	}
}

// A lock held past the retry window fails the commit, and nothing of it is
// stored.
func TestCommitGivesUpAfterTheWindow(t *testing.T) {
	path := filepath.Join(t.TempDir(), "baton.db")
	s, err := Open(path, WithRetry(50*time.Millisecond, 400*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	r := newRun("r1", time.Unix(1000, 0))
	if err := s.CreateRun(ctx, r); err != nil {
		t.Fatal(err)
	}
	released := lockFor(t, path, 2*time.Second)
	r.Status = "completed"
	err = s.Commit(ctx, "r1", Change{Run: &r})
	if err == nil || !isBusy(err) {
		t.Fatalf("commit under a long lock = %v, want a busy error", err)
	}
	<-released
	if got, _ := s.Run(ctx, "r1"); got.Status == "completed" {
		t.Fatal("a failed commit was stored")
	}
	if err := s.Interrupt(ctx, "r1", "the store was unwritable: "+err.Error(), Event{}); err != nil {
		t.Fatal(err)
	}
	got, _ := s.Run(ctx, "r1")
	if got.Status != "interrupted" || got.ResumeStatus != "created" || got.Message == "" {
		t.Fatalf("after Interrupt: status %s, resume %q, message %q", got.Status, got.ResumeStatus, got.Message)
	}
	evs, err := s.Events(ctx, "r1", 0, 100)
	if err != nil || len(evs) == 0 || evs[len(evs)-1].Name != "run:interrupted" {
		t.Fatalf("events %+v, %v", evs, err)
	}
	if err := s.Interrupt(ctx, "nope", "x", Event{}); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Interrupt of an unknown run = %v", err)
	}
}

// Opening a file that is not a database fails and leaves its mode as it was.
func TestOpenCorruptKeepsFileMode(t *testing.T) {
	path := filepath.Join(t.TempDir(), "baton.db")
	if err := os.WriteFile(path, []byte("this is not an SQLite database, but it is long enough to have a header......"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	if s, err := Open(path); err == nil {
		s.Close()
		t.Fatal("a corrupt file opened as a database")
	}
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().Perm() != 0o644 {
		t.Fatalf("mode after a failed open: %v, %v", fi.Mode(), err)
	}
}
