package archiver

import (
	"context"
	"log/slog"
	"slices"
	"sync"
	"testing"

	"github.com/baton-app/baton/backend/session"
)

// host records what it is asked, in order.
type host struct {
	mu   sync.Mutex
	said []string
}

func (h *host) note(s string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.said = append(h.said, s)
}

func (h *host) Interrupt(_ context.Context, id session.ID) error {
	h.note("interrupt " + string(id))
	return nil
}
func (h *host) Archive(_ context.Context, id session.ID) error {
	h.note("archive " + string(id))
	return nil
}

// Stop and Discard end a session at once (Stop no session: nothing);
// Add waits for Flush, which archives in the background until Wait.
func TestArchiver(t *testing.T) {
	h := &host{}
	var untracked []session.ID
	a := New(h, func(id session.ID) { untracked = append(untracked, id) }, slog.Default())
	ctx := context.Background()
	a.Stop(ctx, "", "t0")
	a.Stop(ctx, "s1", "t1")
	a.Discard(ctx, "s2")
	if !slices.Equal(h.said, []string{"interrupt s1", "archive s1", "interrupt s2", "archive s2"}) || !slices.Equal(untracked, []session.ID{"s1"}) {
		t.Fatalf("said %v, untracked %v", h.said, untracked)
	}
	a.Add("")
	a.Add("s3")
	a.Add("s4")
	if len(h.said) != 4 {
		t.Fatal("added sessions wait for the flush")
	}
	a.Flush(ctx)
	a.Wait()
	got := h.said[4:]
	slices.Sort(got)
	if !slices.Equal(got, []string{"archive s3", "archive s4"}) || len(untracked) != 3 {
		t.Fatalf("flushed %v, untracked %v", got, untracked)
	}
	a.Flush(ctx)
	a.Wait()
	if len(h.said) != 6 {
		t.Fatal("a flush archives each session once")
	}
}
