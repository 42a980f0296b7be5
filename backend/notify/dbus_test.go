//go:build linux || freebsd || openbsd || netbsd

package notify

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"
)

// fakeServer is a notification server on the test bus that records Notify calls.
type fakeServer struct {
	conn  *dbus.Conn
	mu    sync.Mutex
	calls []notifyCall
	next  uint32
}

type notifyCall struct {
	App, Summary, Body string
	Actions            []string
	Urgency            byte
}

func (s *fakeServer) Notify(app string, replaces uint32, icon, summary, body string, actions []string, hints map[string]dbus.Variant, timeout int32) (uint32, *dbus.Error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var urgency byte
	if v, ok := hints["urgency"]; ok {
		urgency, _ = v.Value().(byte)
	}
	s.calls = append(s.calls, notifyCall{App: app, Summary: summary, Body: body, Actions: actions, Urgency: urgency})
	s.next++
	return s.next, nil
}

func (s *fakeServer) recorded() []notifyCall {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]notifyCall(nil), s.calls...)
}

func (s *fakeServer) emit(t *testing.T, member string, args ...any) {
	t.Helper()
	if err := s.conn.Emit(notificationsPath, notificationsIface+"."+member, args...); err != nil {
		t.Fatalf("emit %s: %v", member, err)
	}
}

func startFakeServer(t *testing.T) *fakeServer {
	t.Helper()
	conn, err := dbus.ConnectSessionBus()
	if err != nil {
		t.Fatalf("connect to the test bus: %v", err)
	}
	t.Cleanup(func() { conn.Close() })
	s := &fakeServer{conn: conn}
	if err := conn.ExportMethodTable(map[string]any{"Notify": s.Notify}, notificationsPath, notificationsIface); err != nil {
		t.Fatal(err)
	}
	reply, err := conn.RequestName(notificationsName, dbus.NameFlagDoNotQueue)
	if err != nil || reply != dbus.RequestNameReplyPrimaryOwner {
		t.Fatalf("own %s: reply %v, err %v", notificationsName, reply, err)
	}
	t.Cleanup(func() { conn.ReleaseName(notificationsName) })
	return s
}

func newDesktop(t *testing.T, onClick func(string), onInbox func()) *Desktop {
	t.Helper()
	conn, err := dbus.ConnectSessionBus()
	if err != nil {
		t.Fatalf("connect to the test bus: %v", err)
	}
	d, err := NewDesktop(conn, DesktopOptions{OnClick: onClick, OnInbox: onInbox})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		d.Close()
		conn.Close()
	})
	return d
}

// The notification tests share the one well-known name, so they run in sequence.
func TestDesktopNotifications(t *testing.T) {
	needBus(t)
	server := startFakeServer(t)
	clicks := make(chan string, 4)
	inbox := make(chan struct{}, 4)
	d := newDesktop(t, func(runID string) { clicks <- runID }, func() { inbox <- struct{}{} })
	ctx := context.Background()

	t.Run("sends summary, body, urgency and an open action", func(t *testing.T) {
		err := d.Notify(ctx, Notification{Summary: "Run finished", Body: "12 of 12 tasks completed", RunID: "run_1", Urgency: UrgencyCritical})
		if err != nil {
			t.Fatal(err)
		}
		got := server.recorded()
		if len(got) != 1 {
			t.Fatalf("server got %d calls, want 1", len(got))
		}
		c := got[0]
		if c.App != "Baton" || c.Summary != "Run finished" || c.Body != "12 of 12 tasks completed" || c.Urgency != byte(UrgencyCritical) {
			t.Fatalf("server got %+v", c)
		}
		if len(c.Actions) != 2 || c.Actions[0] != "default" {
			t.Fatalf("actions = %v, want the default action", c.Actions)
		}
	})

	t.Run("a click opens the run of that notification", func(t *testing.T) {
		server.emit(t, "ActionInvoked", uint32(1), "default")
		select {
		case got := <-clicks:
			if got != "run_1" {
				t.Fatalf("clicked run = %q, want run_1", got)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("the click did not reach OnClick")
		}
	})

	t.Run("a closed notification no longer opens a run", func(t *testing.T) {
		server.emit(t, "NotificationClosed", uint32(1), uint32(2))
		server.emit(t, "ActionInvoked", uint32(1), "default")
		// A later notification proves the signals above were handled first.
		if err := d.Notify(ctx, Notification{Summary: "Worker waits", RunID: "run_2"}); err != nil {
			t.Fatal(err)
		}
		server.emit(t, "ActionInvoked", uint32(2), "default")
		select {
		case got := <-clicks:
			if got != "run_2" {
				t.Fatalf("clicked run = %q, want run_2 (run_1 was closed)", got)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("the click did not reach OnClick")
		}
	})

	t.Run("a notification about several runs opens the Inbox", func(t *testing.T) {
		if err := d.Notify(ctx, Notification{Summary: "3 workers need you", Inbox: true}); err != nil {
			t.Fatal(err)
		}
		got := server.recorded()
		if a := got[len(got)-1].Actions; len(a) != 2 || a[0] != "default" || a[1] != "Open the Inbox" {
			t.Fatalf("actions = %v, want the default action opening the Inbox", a)
		}
		server.emit(t, "ActionInvoked", uint32(3), "default")
		select {
		case <-inbox:
		case got := <-clicks:
			t.Fatalf("the click opened run %q, want the Inbox", got)
		case <-time.After(10 * time.Second):
			t.Fatal("the click did not reach OnInbox")
		}
	})

	t.Run("disabled sends nothing", func(t *testing.T) {
		before := len(server.recorded())
		d.SetEnabled(false)
		defer d.SetEnabled(true)
		if err := d.Notify(ctx, Notification{Summary: "Quiet"}); err != nil {
			t.Fatal(err)
		}
		if after := len(server.recorded()); after != before {
			t.Fatalf("a disabled notifier sent %d notifications", after-before)
		}
	})

	t.Run("an empty summary is refused", func(t *testing.T) {
		if err := d.Notify(ctx, Notification{Summary: "  "}); !errors.Is(err, ErrEmpty) {
			t.Fatalf("Notify with no summary = %v, want ErrEmpty", err)
		}
	})
}

func TestDesktopWithoutServer(t *testing.T) {
	needBus(t)
	d := newDesktop(t, nil, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	// The tests run in sequence and release the name, so nobody serves it now.
	err := d.Notify(ctx, Notification{Summary: "Nobody listens"})
	if err == nil {
		t.Fatal("Notify succeeded although no notification server is on the bus")
	}
	if want := `send notification "Nobody listens"`; !strings.HasPrefix(err.Error(), want) {
		t.Fatalf("error = %v, want it to name the notification", err)
	}
}
