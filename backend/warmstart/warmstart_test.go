package warmstart

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"testing"
	"time"

	"github.com/baton-app/baton/backend/session"
)

// host warms up to room sessions, naming them after the options' id (or
// w1, w2, … without one), keeps those asked for again, and records what it
// cools.
type host struct {
	room   int
	warm   []session.ID
	cooled []session.ID
	// ended maps a warm id the host ended to the one it warms in its
	// place when asked again; asked records the ids Warm was given.
	ended map[session.ID]session.ID
	asked *[]session.ID
}

func (h *host) Warm(_ context.Context, o session.StartOptions) (session.ID, error) {
	if h.asked != nil {
		*h.asked = append(*h.asked, o.ID)
	}
	if o.ID != "" && slices.Contains(h.warm, o.ID) {
		if again, ok := h.ended[o.ID]; ok {
			h.warm = append(h.warm, again)
			return again, nil
		}
		return o.ID, nil // still warm
	}
	if len(h.warm) >= h.room {
		return "", fmt.Errorf("full")
	}
	id := o.ID
	if id == "" {
		id = session.ID(fmt.Sprintf("w%d", len(h.warm)+1))
	}
	h.warm = append(h.warm, id)
	return id, nil
}

func (h *host) Cool(id session.ID) { h.cooled = append(h.cooled, id) }

func opts(task string) (session.StartOptions, bool) {
	return session.StartOptions{ID: session.ID("s-" + task)}, task != "bad"
}

// Early warms n sessions once a stage; at the next stage it asks the host
// again with the ids it chose, and keeps the ids the host returns (a new
// one for a session it ended); CoolAll ends them.
func TestEarly(t *testing.T) {
	h := &host{room: 10}
	s := New(h, slog.Default())
	var asked []session.ID
	one := func() (session.StartOptions, bool) { return session.StartOptions{}, true }
	s.Early(context.Background(), "analyzing", 2, one)
	s.Early(context.Background(), "analyzing", 2, one)
	if !slices.Equal(h.warm, []session.ID{"w1", "w2"}) {
		t.Fatalf("warmed %v, want two once", h.warm)
	}
	// The host ended w1 meanwhile: warmed again, it comes back as w3.
	h.ended = map[session.ID]session.ID{"w1": "w3"}
	h.asked = &asked
	s.Early(context.Background(), "planning", 2, one)
	if !slices.Equal(asked, []session.ID{"w1", "w2"}) || !slices.Equal(s.early, []session.ID{"w3", "w2"}) {
		t.Fatalf("asked again for %v, early %v; want w1 and w2 asked, w3 and w2 kept", asked, s.early)
	}
	s.CoolAll()
	if !slices.Equal(h.cooled, []session.ID{"w3", "w2"}) {
		t.Fatalf("cooled %v", h.cooled)
	}
	s2 := New(&host{room: 10}, slog.Default())
	s2.Early(context.Background(), "planning", 2, func() (session.StartOptions, bool) { return session.StartOptions{}, false })
	if len(s2.early) != 0 || s2.stage != "planning" {
		t.Fatal("options that cannot be made warm nothing, once a stage")
	}
}

// Fill warms the tasks in order up to the room, skipping those without
// options and those warm already; a host that declines pauses it.
func TestFill(t *testing.T) {
	h := &host{room: 2}
	s := New(h, slog.Default())
	ctx := context.Background()
	s.Fill(ctx, 3, []string{"a", "bad", "b", "c", "d"}, opts)
	if !slices.Equal(h.warm, []session.ID{"s-a", "s-b"}) || !s.Has("a") || !s.Has("b") || s.Has("c") {
		t.Fatalf("warmed %v", h.warm)
	}
	if !s.Paused(time.Now()) || s.Paused(time.Now().Add(Pause+time.Millisecond)) {
		t.Fatal("the host declined c: warming pauses for Pause")
	}
	h.room = 10
	s.Fill(ctx, 2, []string{"a", "b", "c"}, opts)
	if len(h.warm) != 2 {
		t.Fatalf("the room of 2 is full: %v", h.warm)
	}
	// b's next session is not the one warmed: cooled.
	s.CoolStale(func(task string, id session.ID) bool { return task != "b" })
	if s.Has("b") || !slices.Equal(h.cooled, []session.ID{"s-b"}) {
		t.Fatalf("cooled %v", h.cooled)
	}
	// a starts as another id: its warm session is cooled; c starts as its own.
	s.Fill(ctx, 2, []string{"c"}, opts)
	s.Started("a", "other")
	s.Started("c", "s-c")
	if s.Has("a") || s.Has("c") || !slices.Equal(h.cooled, []session.ID{"s-b", "s-a"}) {
		t.Fatalf("cooled %v", h.cooled)
	}
}
