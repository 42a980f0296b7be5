package chrome

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"
)

const chromiumPath = "/usr/bin/chromium"

func TestParseEndpoint(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in          string
		allowRemote bool
		want        string
		err         error
	}{
		{"", false, "http://127.0.0.1:9222", nil},
		{"127.0.0.1:9333", false, "http://127.0.0.1:9333", nil},
		{"ws://localhost:9222/devtools/browser/x", false, "http://localhost:9222", nil},
		{"http://[::1]:9222", false, "http://[::1]:9222", nil},
		{"http://192.168.1.5:9222", false, "", ErrRemoteEndpoint},
		{"http://example.com:9222", false, "", ErrRemoteEndpoint},
		{"http://192.168.1.5:9222", true, "http://192.168.1.5:9222", nil},
		{"http://127.0.0.1", false, "", errors.New("no port")},
		{"ftp://127.0.0.1:9222", false, "", errors.New("scheme")},
	}
	for _, tt := range tests {
		u, err := ParseEndpoint(tt.in, tt.allowRemote)
		switch {
		case tt.err == nil && err != nil:
			t.Errorf("ParseEndpoint(%q) error = %v", tt.in, err)
		case tt.err == nil && u.String() != tt.want:
			t.Errorf("ParseEndpoint(%q) = %s, want %s", tt.in, u, tt.want)
		case tt.err != nil && err == nil:
			t.Errorf("ParseEndpoint(%q) succeeded, want an error", tt.in)
		case errors.Is(tt.err, ErrRemoteEndpoint) && !errors.Is(err, ErrRemoteEndpoint):
			t.Errorf("ParseEndpoint(%q) error = %v, want ErrRemoteEndpoint", tt.in, err)
		}
	}
}

func TestMatchPages(t *testing.T) {
	t.Parallel()
	targets := []TargetInfo{
		{ID: "1", Type: "page", URL: "https://example.com/"},
		{ID: "2", Type: "service_worker", URL: "https://claude.ai/sw.js"},
		{ID: "3", Type: "page", URL: "app://localhost/index.html"},
		{ID: "4", Type: "page", URL: "https://claude.ai/new"},
	}
	got := MatchPages(targets, nil)
	if len(got) != 2 || got[0].ID != "4" || got[1].ID != "3" {
		t.Fatalf("MatchPages = %+v, want pages 4 then 3", got)
	}
	if got := MatchPages(targets, []string{"example.com"}); len(got) != 1 || got[0].ID != "1" {
		t.Fatalf("MatchPages(example.com) = %+v", got)
	}
}

func TestFindChrome(t *testing.T) {
	t.Setenv("BATON_CHROME", "")
	if _, err := FindChrome(filepath.Join(t.TempDir(), "no-chrome")); !errors.Is(err, ErrChromeNotFound) {
		t.Fatalf("FindChrome(missing explicit) error = %v, want ErrChromeNotFound", err)
	}
	t.Setenv("BATON_CHROME", filepath.Join(t.TempDir(), "nope"))
	if _, err := FindChrome(""); !errors.Is(err, ErrChromeNotFound) {
		t.Fatalf("FindChrome with a missing BATON_CHROME error = %v", err)
	}
}

func TestStateString(t *testing.T) {
	t.Parallel()
	for s, want := range map[State]string{Connected: "connected", Reconnecting: "reconnecting", Disconnected: "disconnected"} {
		if s.String() != want {
			t.Errorf("%d.String() = %q, want %q", s, s.String(), want)
		}
	}
}

// TestConnLifecycle launches its own browser (it kills it on purpose):
// push notices through the binding, the polling fallback, the status when
// the browser goes away, and the cleanup of the temporary profile.
func TestConnLifecycle(t *testing.T) {
	if testing.Short() {
		t.Skip("needs Chromium; skipped with -short")
	}
	if _, err := os.Stat(chromiumPath); err != nil {
		t.Fatalf("Chromium is missing at %s (install the chromium package): %v", chromiumPath, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	srv := httptest.NewServer(http.FileServer(http.Dir("testdata")))
	defer srv.Close()
	b, err := Launch(ctx, LaunchOptions{Path: chromiumPath, Headless: true, URL: srv.URL + "/push.html"})
	if err != nil {
		t.Fatal(err)
	}
	profile := b.ProfileDir()
	defer b.Shutdown(context.Background())
	u, _ := ParseEndpoint(b.Endpoint(), false)
	if _, err := OpenPage(ctx, u, srv.URL+"/poll.html"); err != nil {
		t.Fatal(err)
	}

	statuses := make(chan Status, 16)
	quiet := slog.New(slog.DiscardHandler)
	push, err := Connect(ctx, Config{Endpoint: b.Endpoint(), PagePatterns: []string{"/push.html"}, Logger: quiet,
		OnStatus: func(s Status) {
			select {
			case statuses <- s:
			default:
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	if !push.Probe().Present {
		t.Fatalf("probe = %+v", push.Probe())
	}
	if _, err := push.Call(ctx, "function (id, type) { emitEvent(id, type); }", "local_a", "result"); err != nil {
		t.Fatal(err)
	}
	select {
	case n := <-push.Notices():
		if n != (Notice{SessionID: "local_a", Kind: "result"}) {
			t.Fatalf("notice = %+v", n)
		}
	case <-ctx.Done():
		t.Fatal("no push notice")
	}
	// A JavaScript error comes back as a *JSError with its message.
	var jsErr *JSError
	if _, err := push.Call(ctx, "function (m) { throw new Error(m); }", "boom \"quoted\""); !errors.As(err, &jsErr) || jsErr.Message != `boom "quoted"` {
		t.Fatalf("Call(throw) error = %v", err)
	}

	// Of several matching pages, the one with LocalSessions wins.
	if _, err := OpenPage(ctx, u, srv.URL+"/plain.html"); err != nil {
		t.Fatal(err)
	}
	pref, err := Connect(ctx, Config{Endpoint: b.Endpoint(), PagePatterns: []string{"/plain.html", "/push.html"}, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	if page := pref.Status().Page; page != srv.URL+"/push.html" || !pref.Probe().Present {
		t.Fatalf("attached to %s (probe %+v), want the page with LocalSessions", page, pref.Probe())
	}
	if err := pref.Close(ctx); err != nil {
		t.Fatal(err)
	}

	poll, err := Connect(ctx, Config{Endpoint: b.Endpoint(), PagePatterns: []string{"/poll.html"}, PollInterval: 20 * time.Millisecond, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	<-poll.Notices() // the first poll reports every session
	if _, err := poll.Call(ctx, "function () { touch(); }"); err != nil {
		t.Fatal(err)
	}
	select {
	case n := <-poll.Notices():
		if n.SessionID != "local_poll" || n.Kind != "updated" {
			t.Fatalf("poll notice = %+v", n)
		}
	case <-ctx.Done():
		t.Fatal("no poll notice")
	}
	if err := poll.Close(ctx); err != nil {
		t.Fatal(err)
	}

	// The browser goes away: the status says so, with the reason.
	if err := b.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	for reconnecting := false; !reconnecting; {
		select {
		case s := <-statuses:
			if s.State == Reconnecting {
				if s.Reason == "" {
					t.Fatal("reconnecting without a reason")
				}
				reconnecting = true
			}
		case <-ctx.Done():
			t.Fatal("no reconnecting status after the browser went away")
		}
	}
	if err := push.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if st := push.Status(); st.State != Disconnected {
		t.Fatalf("status after Close = %+v", st)
	}
	if _, err := push.Call(ctx, "function () {}"); !errors.Is(err, ErrClosed) {
		t.Fatalf("Call after Close error = %v, want ErrClosed", err)
	}
	if _, err := os.Stat(profile); !os.IsNotExist(err) {
		t.Fatalf("temporary profile %s left behind (%v)", profile, err)
	}
}

func TestConnectDeadEndpoint(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.NotFoundHandler())
	dead := srv.URL
	srv.Close()
	_, err := Connect(context.Background(), Config{Endpoint: dead})
	var ue *UnreachableError
	if !errors.As(err, &ue) || !errors.Is(err, ErrUnreachable) {
		t.Fatalf("Connect(dead) error = %v, want an *UnreachableError", err)
	}
}

// A fixed port is ready when it answers: Chromium writes DevToolsActivePort
// only for a port it chose itself.
func TestLaunchOnAFixedPort(t *testing.T) {
	if testing.Short() {
		t.Skip("needs Chromium; skipped with -short")
	}
	if _, err := os.Stat(chromiumPath); err != nil {
		t.Fatalf("Chromium is missing at %s (install the chromium package): %v", chromiumPath, err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	b, err := Launch(ctx, LaunchOptions{Path: chromiumPath, Headless: true, Port: port})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Shutdown(context.Background())
	if want := fmt.Sprintf("http://127.0.0.1:%d", port); b.Endpoint() != want {
		t.Fatalf("endpoint = %s, want %s", b.Endpoint(), want)
	}
	resp, err := http.Get(b.Endpoint() + "/json/version")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /json/version = %s", resp.Status)
	}
}
