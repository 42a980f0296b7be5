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
	"strings"
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

// TestConnHooks: of two matching pages the one Prefer chooses wins, the
// bindings reach Go, and OnAttach runs on the first attach and again after
// a reload, before calls go through.
func TestConnHooks(t *testing.T) {
	if testing.Short() {
		t.Skip("needs Chromium; skipped with -short")
	}
	if _, err := os.Stat(chromiumPath); err != nil {
		t.Fatalf("Chromium is missing at %s (install the chromium package): %v", chromiumPath, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		kind := strings.TrimSuffix(strings.TrimPrefix(r.URL.Path, "/"), ".html")
		fmt.Fprintf(w, "<!doctype html><title>%s</title><script>window.kind = %q;</script>", kind, kind)
	}))
	defer srv.Close()
	b, err := Launch(ctx, LaunchOptions{Path: chromiumPath, Headless: true, URL: srv.URL + "/a.html"})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Shutdown(context.Background())
	u, _ := ParseEndpoint(b.Endpoint(), false)
	if _, err := OpenPage(ctx, u, srv.URL+"/b.html"); err != nil {
		t.Fatal(err)
	}
	// A new tab shows about:blank until its document is there: wait for
	// both titles, so that Prefer sees the pages' own documents.
	for {
		ts, err := Targets(ctx, u)
		if err != nil {
			t.Fatal(err)
		}
		titles := map[string]bool{}
		for _, p := range MatchPages(ts, []string{"/a.html", "/b.html"}) {
			titles[p.Title] = true
		}
		if titles["a"] && titles["b"] {
			break
		}
		select {
		case <-ctx.Done():
			t.Fatal("the pages never showed their titles")
		case <-time.After(20 * time.Millisecond):
		}
	}

	payloads := make(chan string, 4)
	attached := make(chan string, 4)
	conn, err := Connect(ctx, Config{
		Endpoint: b.Endpoint(), PagePatterns: []string{"/a.html", "/b.html"}, Logger: slog.New(slog.DiscardHandler),
		Bindings: map[string]func(string){"__test": func(p string) { payloads <- p }},
		Prefer: func(ctx context.Context, p *Page) (bool, error) {
			// A page that is still loading has not run its script yet.
			raw, err := p.Call(ctx, `function () {
				return new Promise((resolve) => {
					if (document.readyState === 'complete') resolve(window.kind);
					else addEventListener('load', () => resolve(window.kind));
				});
			}`)
			return string(raw) == `"b"`, err
		},
		OnAttach: func(ctx context.Context, p *Page) error {
			_, err := p.Call(ctx, "function () { window.setUp = true; }")
			attached <- p.URL()
			return err
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	if page := conn.Status().Page; page != srv.URL+"/b.html" {
		t.Fatalf("attached to %s, want the preferred page b", page)
	}
	if got := <-attached; got != srv.URL+"/b.html" {
		t.Fatalf("OnAttach ran on %s", got)
	}
	for round := range 2 {
		raw, err := conn.Call(ctx, "function (s) { __test(s); return window.setUp === true; }", fmt.Sprint("hello ", round))
		if err != nil || string(raw) != "true" {
			t.Fatalf("round %d: Call = %s, %v; want true (OnAttach ran before the call)", round, raw, err)
		}
		select {
		case p := <-payloads:
			if p != fmt.Sprint("hello ", round) {
				t.Fatalf("round %d: binding payload %q", round, p)
			}
		case <-ctx.Done():
			t.Fatalf("round %d: the binding did not reach Go", round)
		}
		if round == 0 {
			if _, err := conn.Call(ctx, "function () { setTimeout(() => location.reload(), 0); }"); err != nil {
				t.Fatal(err)
			}
			select {
			case <-attached:
			case <-ctx.Done():
				t.Fatal("OnAttach did not run after the reload")
			}
		}
	}
}
