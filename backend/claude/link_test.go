package claude

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"testing"
	"time"

	"github.com/baton-app/baton/backend/chrome"
	"github.com/baton-app/baton/backend/session"
)

func TestMatchPages(t *testing.T) {
	t.Parallel()
	targets := []chrome.TargetInfo{
		{ID: "1", Type: "page", URL: "https://example.com/"},
		{ID: "2", Type: "service_worker", URL: "https://claude.ai/sw.js"},
		{ID: "3", Type: "page", URL: "app://localhost/index.html"},
		{ID: "4", Type: "page", URL: "https://claude.ai/new"},
	}
	got := chrome.MatchPages(targets, PagePatterns)
	if len(got) != 2 || got[0].ID != "4" || got[1].ID != "3" {
		t.Fatalf("MatchPages = %+v, want pages 4 then 3", got)
	}
	if got := chrome.MatchPages(targets, []string{"example.com"}); len(got) != 1 || got[0].ID != "1" {
		t.Fatalf("MatchPages(example.com) = %+v", got)
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
	b, err := chrome.Launch(ctx, chrome.LaunchOptions{Path: chromiumPath, Headless: true, URL: srv.URL + "/push.html"})
	if err != nil {
		t.Fatal(err)
	}
	profile := b.ProfileDir()
	defer b.Shutdown(context.Background())
	u, _ := chrome.ParseEndpoint(b.Endpoint(), false)
	if _, err := chrome.OpenPage(ctx, u, srv.URL+"/poll.html"); err != nil {
		t.Fatal(err)
	}

	statuses := make(chan chrome.Status, 16)
	quiet := slog.New(slog.DiscardHandler)
	push, err := connect(ctx, chrome.Config{Endpoint: b.Endpoint(), PagePatterns: []string{"/push.html"}, Logger: quiet,
		OnStatus: func(s chrome.Status) {
			select {
			case statuses <- s:
			default:
			}
		}}, linkOptions{Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	if !push.Probe().Present {
		t.Fatalf("probe = %+v", push.Probe())
	}
	if _, err := push.conn.Call(ctx, "function (id, type) { emitEvent(id, type); }", "local_a", "result"); err != nil {
		t.Fatal(err)
	}
	select {
	case n := <-push.Notices():
		if n != (session.Notice{SessionID: "local_a", Kind: "result"}) {
			t.Fatalf("notice = %+v", n)
		}
	case <-ctx.Done():
		t.Fatal("no push notice")
	}
	// A JavaScript error comes back as a *JSError with its message.
	var jsErr *chrome.JSError
	if _, err := push.conn.Call(ctx, "function (m) { throw new Error(m); }", "boom \"quoted\""); !errors.As(err, &jsErr) || jsErr.Message != `boom "quoted"` {
		t.Fatalf("Call(throw) error = %v", err)
	}

	// Of several matching pages, the one with LocalSessions wins.
	if _, err := chrome.OpenPage(ctx, u, srv.URL+"/plain.html"); err != nil {
		t.Fatal(err)
	}
	pref, err := connect(ctx, chrome.Config{Endpoint: b.Endpoint(), PagePatterns: []string{"/plain.html", "/push.html"}, Logger: quiet}, linkOptions{Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	if page := pref.conn.Status().Page; page != srv.URL+"/push.html" || !pref.Probe().Present {
		t.Fatalf("attached to %s (probe %+v), want the page with LocalSessions", page, pref.Probe())
	}
	if err := pref.Close(ctx); err != nil {
		t.Fatal(err)
	}

	poll, err := connect(ctx, chrome.Config{Endpoint: b.Endpoint(), PagePatterns: []string{"/poll.html"}, Logger: quiet}, linkOptions{PollInterval: 20 * time.Millisecond, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	<-poll.Notices() // the first poll reports every session
	if _, err := poll.conn.Call(ctx, "function () { touch(); }"); err != nil {
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
			if s.State == chrome.Reconnecting {
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
	if st := push.conn.Status(); st.State != chrome.Disconnected {
		t.Fatalf("status after Close = %+v", st)
	}
	if _, err := push.conn.Call(ctx, "function () {}"); !errors.Is(err, chrome.ErrClosed) {
		t.Fatalf("Call after Close error = %v, want ErrClosed", err)
	}
	if _, err := os.Stat(profile); !os.IsNotExist(err) {
		t.Fatalf("temporary profile %s left behind (%v)", profile, err)
	}
}
