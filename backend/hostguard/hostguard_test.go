package hostguard

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/baton-app/baton/backend/session"
)

// blockingHost is a host whose connection can be lost and whose calls
// wait for their context, as a call to a page that no longer answers does;
// Start answers at once and is counted.
type blockingHost struct {
	mu     sync.Mutex
	down   bool
	reason string
	ch     chan struct{}
	starts int
}

func newBlockingHost() *blockingHost { return &blockingHost{ch: make(chan struct{})} }

func (h *blockingHost) Link() session.LinkState {
	h.mu.Lock()
	defer h.mu.Unlock()
	return session.LinkState{Up: !h.down, Reason: h.reason, Changed: h.ch}
}

func (h *blockingHost) set(down bool, reason string) {
	h.mu.Lock()
	h.down, h.reason = down, reason
	close(h.ch)
	h.ch = make(chan struct{})
	h.mu.Unlock()
}

func (h *blockingHost) Start(ctx context.Context, o session.StartOptions) (session.ID, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.starts++
	return o.ID, nil
}

func (h *blockingHost) Send(ctx context.Context, id session.ID, text string) error {
	<-ctx.Done()
	return ctx.Err()
}

func (h *blockingHost) Read(ctx context.Context, id session.ID, c session.Cursor) (session.Batch, error) {
	<-ctx.Done()
	return session.Batch{}, ctx.Err()
}

func (h *blockingHost) Session(ctx context.Context, id session.ID) (session.Info, error) {
	<-ctx.Done()
	return session.Info{}, ctx.Err()
}

func (h *blockingHost) Interrupt(ctx context.Context, id session.ID) error { return nil }
func (h *blockingHost) Archive(ctx context.Context, id session.ID) error   { return nil }
func (h *blockingHost) Notices() <-chan session.Notice                     { return nil }

func lost(err error) bool { return errors.Is(err, session.ErrHostLost) }

// Every host call has a deadline (a shorter one for the calls that only
// look), fails at once while the link is down, and a call in flight is cut
// at once when the link goes down; those errors are ErrHostLost.
func TestDeadlinesAndCuts(t *testing.T) {
	t.Parallel()
	h := newBlockingHost()
	g := New(h, 400*time.Millisecond, 100*time.Millisecond)
	ctx := context.Background()

	start := time.Now()
	if _, err := g.Session(ctx, "s"); !errors.Is(err, context.DeadlineExceeded) || lost(err) {
		t.Fatalf("Session past its deadline = %v", err)
	}
	if d := time.Since(start); d < 100*time.Millisecond || d > 350*time.Millisecond {
		t.Errorf("Session took %s, want its 100ms bound", d)
	}
	start = time.Now()
	if err := g.Send(ctx, "s", "x"); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Send past its deadline = %v", err)
	}
	if d := time.Since(start); d < 400*time.Millisecond {
		t.Errorf("Send took %s, want its 400ms bound", d)
	}

	// A call in flight when the link goes down ends at once.
	g = New(h, time.Minute, time.Minute)
	done := make(chan error, 1)
	go func() { done <- g.Send(ctx, "s", "x") }()
	time.Sleep(20 * time.Millisecond)
	h.set(true, "browser went away")
	select {
	case err := <-done:
		if !lost(err) || !strings.Contains(err.Error(), "browser went away") {
			t.Fatalf("the cut call returned %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the call was not cut when the link went down")
	}
	if st := g.Link(); st.Up || st.Reason != "browser went away" {
		t.Errorf("Link while down = %+v", st)
	}
	// While the link is down, calls fail at once without reaching the host.
	if _, err := g.Start(ctx, session.StartOptions{}); !lost(err) {
		t.Fatalf("Start while down = %v", err)
	}
	if h.starts != 0 {
		t.Fatalf("the host got %d starts while down", h.starts)
	}
	h.set(false, "")
	if id, err := g.Start(ctx, session.StartOptions{ID: "local_x"}); err != nil || id != "local_x" {
		t.Fatalf("Start after the link is back = %q, %v", id, err)
	}
}

// browserHost is a host that can also list sessions and answer permission
// requests; its answer blocks like the rest.
type browserHost struct{ *blockingHost }

func (browserHost) List(ctx context.Context, includeHidden bool) ([]session.Info, error) {
	return []session.Info{{ID: "s"}}, nil
}

func (browserHost) RespondPermission(ctx context.Context, requestID string, d session.PermissionDecision, input json.RawMessage) error {
	<-ctx.Done()
	return ctx.Err()
}

// A host without a link is always up; the browser of a host that has one
// is bounded like the host, and a host that is none has none.
func TestBrowserAndLinkless(t *testing.T) {
	t.Parallel()
	if b := New(newBlockingHost(), time.Second, time.Second).Browser(); b != nil {
		t.Errorf("a host that is no browser got one: %v", b)
	}
	h := browserHost{newBlockingHost()}
	g := New(h, 100*time.Millisecond, time.Second)
	b := g.Browser()
	if l, err := b.List(context.Background(), false); err != nil || len(l) != 1 {
		t.Fatalf("List = %v, %v", l, err)
	}
	if err := b.RespondPermission(context.Background(), "r", session.AllowOnce, nil); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("RespondPermission past its deadline = %v", err)
	}
	h.set(true, "gone")
	if err := b.RespondPermission(context.Background(), "r", session.AllowOnce, nil); !lost(err) {
		t.Fatalf("RespondPermission while down = %v", err)
	}
	if g.Inner() != session.Host(h) {
		t.Error("Inner is not the bounded host")
	}
}

// A model that cannot be reached is not a lost host: its calls go on (a
// run that waits for the model can still be cancelled and its sessions
// stopped), and none is cut when only the model goes away.
func TestModelOutageLeavesCallsAlone(t *testing.T) {
	t.Parallel()
	model := &modelHost{blockingHost: newBlockingHost()}
	g := New(model, 300*time.Millisecond, 300*time.Millisecond)
	ctx := context.Background()
	model.lose()
	if st := g.Link(); st.Up || !st.Model || st.Refuses() {
		t.Fatalf("link %+v, want down for the model only", st)
	}
	if _, err := g.Start(ctx, session.StartOptions{ID: "s"}); err != nil {
		t.Fatalf("Start while only the model is away: %v", err)
	}
	if err := g.Archive(ctx, "s"); err != nil {
		t.Fatalf("Archive while only the model is away: %v", err)
	}
	done := make(chan error, 1)
	go func() { _, err := g.Read(ctx, "s", session.Cursor{}); done <- err }()
	time.Sleep(50 * time.Millisecond)
	model.lose() // a change while the call runs: not a cut
	if err := <-done; lost(err) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Read ended with %v, want its own deadline", err)
	}
}

// modelHost is a host whose model goes away (LinkState.Model).
type modelHost struct {
	*blockingHost
	mu   sync.Mutex
	down bool
	ch   chan struct{}
}

func (m *modelHost) Link() session.LinkState {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.ch == nil {
		m.ch = make(chan struct{})
	}
	return session.LinkState{Up: !m.down, Model: m.down, Reason: "the model cannot be reached", Changed: m.ch}
}

func (m *modelHost) lose() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.down = true
	if m.ch != nil {
		close(m.ch)
	}
	m.ch = make(chan struct{})
}
