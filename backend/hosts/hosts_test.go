package hosts

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/baton-app/baton/backend/session"
	"github.com/baton-app/baton/backend/settings"
	"github.com/baton-app/baton/backend/testsupport"
)

type recorder struct {
	mu     sync.Mutex
	events []Status
}

func (r *recorder) emit(name string, payload any) {
	if name != EventStatus {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, payload.(Status))
}

func (r *recorder) states() []State {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []State
	for _, e := range r.events {
		out = append(out, e.State)
	}
	return out
}

// testKinds are the kinds Baton ships, the simulator at speed.
func testKinds(t *testing.T, speed float64) *Registry {
	return NewRegistry(Simulator(SimulatorOptions{Speed: speed}), Desktop(), ClaudeCode(ClaudeCodeOptions{StateDir: t.TempDir()}))
}

func TestSimulatorConnectsLazilyAndReconfigures(t *testing.T) {
	testsupport.NeedChromium(t)
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	rec := &recorder{}
	m := New(settings.Defaults(), Options{Emit: rec.emit, Kinds: testKinds(t, 100)})
	defer m.Shutdown(context.Background())

	if st := m.Status(); st.State != StateIdle || st.Label != "Simulator — no AI" {
		t.Fatalf("status before first use = %+v, want idle simulator", st)
	}
	host, err := m.Host(ctx)
	if err != nil {
		t.Fatalf("connect to the simulator: %v", err)
	}
	again, err := m.Host(ctx)
	if err != nil || again != host {
		t.Fatalf("second Host() = %p, %v; want the same connection", again, err)
	}
	st := m.Status()
	if st.State != StateConnected || !strings.HasPrefix(st.Endpoint, "http://127.0.0.1:") {
		t.Fatalf("status after connect = %+v", st)
	}
	if cur := m.Current(); cur.Kind != "simulator" || cur.Short != "sim" || cur.Endpoint != st.Endpoint || cur.Path != "" {
		t.Errorf("current host = %+v", cur)
	}
	if got := rec.states(); len(got) < 2 || got[0] != StateConnecting || got[len(got)-1] != StateConnected {
		t.Fatalf("status events = %v, want connecting … connected", got)
	}
	if _, err := host.List(ctx, true); err != nil {
		t.Fatalf("list sessions of the simulator: %v", err)
	}

	// The Manager is itself a session host: calls go to the simulator and
	// its notices arrive on the Manager's channel.
	id, err := m.Start(ctx, session.StartOptions{Cwd: t.TempDir(), Message: "Say hello", Title: "hello"})
	if err != nil {
		t.Fatalf("start a session through the Manager: %v", err)
	}
	deadline := time.After(60 * time.Second)
	for got := false; !got; {
		select {
		case n := <-m.Notices():
			got = n.SessionID == id
		case <-deadline:
			t.Fatalf("no notice for session %s reached the Manager's channel", id)
		}
	}
	batch, err := m.Read(ctx, id, session.Cursor{})
	if err != nil || len(batch.Entries) == 0 {
		t.Fatalf("Read through the Manager = %d entries, %v", len(batch.Entries), err)
	}

	report, err := m.Diagnose(ctx, settings.Defaults())
	if err != nil || !report.OK || report.Host != "simulator" || report.Label != "Simulator — no AI" {
		t.Fatalf("doctor on the simulator is not OK: %+v, %v", report, err)
	}
	if endpoint, _ := host.Where(); report.Target != endpoint {
		t.Fatalf("doctor on the simulator checked %s, not the simulator in use at %s", report.Target, endpoint)
	}

	// A setting that does not change the connection keeps it.
	same := settings.Defaults()
	same.Notifications = false
	if err := m.Configure(ctx, same); err != nil {
		t.Fatal(err)
	}
	if m.Status().State != StateConnected {
		t.Fatalf("an unrelated setting dropped the connection: %+v", m.Status())
	}
	// Switching to Claude Desktop on a closed port closes the simulator and
	// fails the next connect with a sentence about the endpoint.
	desktop := settings.Defaults()
	desktop.Host = settings.HostDesktop
	desktop.CDPEndpoint = "http://" + closedAddr(t)
	if err := m.Configure(ctx, desktop); err != nil {
		t.Fatalf("Configure: %v", err)
	}
	if st := m.Status(); st.State != StateIdle || st.Label != "Claude Desktop" {
		t.Fatalf("status after switching host = %+v", st)
	}
	if _, err := m.Host(ctx); err == nil {
		t.Fatal("connecting to a closed port succeeded")
	}
	if report, _ := m.Diagnose(ctx, desktop); report.OK || !strings.Contains(fmt.Sprint(report.Checks), "--remote-debugging-port") {
		t.Fatalf("doctor on a closed port = %+v, want a failed report that says how to start Claude Desktop", report.Checks)
	}
	if st := m.Status(); st.State != StateDisconnected || st.Reason == "" {
		t.Fatalf("status after a failed connect = %+v, want disconnected with a reason", st)
	}
}

func TestShutdownRefusesFurtherUse(t *testing.T) {
	t.Parallel()
	m := New(settings.Defaults(), Options{Kinds: testKinds(t, 1)})
	if err := m.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Host(context.Background()); !errors.Is(err, ErrClosed) {
		t.Fatalf("Host after Shutdown = %v, want ErrClosed", err)
	}
}

// closedAddr returns a loopback address nothing listens on.
func closedAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

// The Manager is an session.HostLink: a CDP connection that reconnects is a
// lost link until it is connected again, and each change closes Changed.
func TestLinkFollowsTheConnection(t *testing.T) {
	m := New(settings.Defaults(), Options{Kinds: testKinds(t, 1)})
	l := m.Link()
	if !l.Up || l.Changed == nil {
		t.Fatalf("a new Manager's link = %+v, want up", l)
	}
	m.setStatus(Status{State: StateConnected})
	select {
	case <-l.Changed:
		t.Fatal("connecting closed Changed although the link stayed up")
	default:
	}
	m.setStatus(Status{State: StateReconnecting, Reason: "browser went away"})
	select {
	case <-l.Changed:
	default:
		t.Fatal("losing the connection did not close Changed")
	}
	lost := m.Link()
	if lost.Up || lost.Reason != "browser went away" {
		t.Fatalf("link while reconnecting = %+v", lost)
	}
	m.setStatus(Status{State: StateReconnecting, Reason: "connection refused"})
	select {
	case <-lost.Changed:
		t.Fatal("a new reason closed Changed although the link stayed down")
	default:
	}
	m.setStatus(Status{State: StateConnected})
	select {
	case <-lost.Changed:
	default:
		t.Fatal("reconnecting did not close Changed")
	}
	if !m.Link().Up {
		t.Fatal("the link is not up after the reconnect")
	}
}
