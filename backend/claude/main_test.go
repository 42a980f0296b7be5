package claude

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/baton-app/baton/backend/chrome"
	"github.com/baton-app/baton/backend/session"
	"github.com/baton-app/baton/backend/simulator"
)

// browser is the one Chromium of this test binary (chromedp's rule: one
// allocator per test binary, a tab per test). browserErr says why it is
// missing.
var (
	browser    *chrome.Browser
	browserErr error
)

const chromiumPath = "/usr/bin/chromium"

func TestMain(m *testing.M) {
	flag.Parse()
	if testing.Short() {
		os.Exit(m.Run())
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	browser, browserErr = chrome.Launch(ctx, chrome.LaunchOptions{Path: chromiumPath, Headless: true})
	cancel()
	code := m.Run()
	if browser != nil {
		sctx, scancel := context.WithTimeout(context.Background(), 30*time.Second)
		err := browser.Shutdown(sctx)
		scancel()
		if err != nil {
			fmt.Fprintln(os.Stderr, "shut down the test browser:", err)
			code = 1
		}
		if _, err := os.Stat(browser.ProfileDir()); err == nil {
			fmt.Fprintln(os.Stderr, "the temporary browser profile was left behind:", browser.ProfileDir())
			code = 1
		}
	}
	os.Exit(code)
}

// env is one test's simulator, tab and adapter.
type env struct {
	sim  *simulator.Simulator
	host *Host
	dir  string
}

// needBrowser fails the test when Chromium is missing (skips only under
// -short).
func needBrowser(t testing.TB) *url.URL {
	t.Helper()
	if testing.Short() {
		t.Skip("needs Chromium; skipped with -short")
	}
	if browser == nil {
		t.Fatalf("Chromium could not be started from %s (install the chromium package): %v", chromiumPath, browserErr)
	}
	u, err := chrome.ParseEndpoint(browser.Endpoint(), false)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// newEnv starts a simulator, opens its page in a new tab of the shared
// browser and attaches the adapter to that tab.
func newEnv(t testing.TB, opts simulator.Options) *env {
	t.Helper()
	return newEnvWith(t, opts, Options{})
}

// newEnvWith is newEnv with the adapter's options.
func newEnvWith(t testing.TB, opts simulator.Options, hostOpts Options) *env {
	t.Helper()
	u := needBrowser(t)
	if opts.Speed == 0 {
		opts.Speed = 200
	}
	opts.Logger = slog.New(slog.DiscardHandler)
	sim, err := simulator.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := sim.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := sim.Shutdown(ctx); err != nil {
			t.Errorf("simulator shutdown: %v", err)
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	page, err := chrome.OpenPage(ctx, u, sim.URL())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = chrome.ClosePage(ctx, u, page.ID)
	})
	h, err := Dial(ctx, chrome.Config{Endpoint: u.String(), PagePatterns: []string{sim.PageURL()}, Logger: slog.New(slog.DiscardHandler)}, hostOpts)
	if err != nil {
		t.Fatalf("attach to the simulator page: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := h.Close(ctx); err != nil {
			t.Errorf("close adapter: %v", err)
		}
	})
	dir, err := filepath.Abs("testdata/project")
	if err != nil {
		t.Fatal(err)
	}
	return &env{sim: sim, host: h, dir: dir}
}

func testCtx(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// waitSession waits (bounded) until cond holds for the session, checking on
// every notice and at least every 100ms.
func (e *env) waitSession(t testing.TB, id session.ID, what string, cond func(session.Info) bool) session.Info {
	t.Helper()
	ctx := testCtx(t)
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		si, err := e.host.Session(ctx, id)
		if err == nil && cond(si) {
			return si
		}
		select {
		case <-ctx.Done():
			t.Fatalf("session %s never became %s (last: %+v, %v)", id, what, si, err)
		case <-e.host.Notices():
		case <-tick.C:
		}
	}
}

// waitIdle waits until the session's turn ended with a result entry, and
// returns the whole transcript.
func (e *env) waitIdle(t testing.TB, id session.ID) []map[string]any {
	t.Helper()
	var entries []map[string]any
	e.waitSession(t, id, "idle", func(si session.Info) bool {
		if si.TurnRunning {
			return false
		}
		entries = e.readAll(t, id)
		return len(entries) > 0 && entries[len(entries)-1]["type"] == "result"
	})
	return entries
}

// readAll reads the transcript from the start, batch by batch.
func (e *env) readAll(t testing.TB, id session.ID) []map[string]any {
	t.Helper()
	entries, _ := e.readFrom(t, id, session.Cursor{})
	return entries
}

func (e *env) readFrom(t testing.TB, id session.ID, c session.Cursor) ([]map[string]any, session.Cursor) {
	t.Helper()
	ctx := testCtx(t)
	var out []map[string]any
	for {
		b, err := e.host.Read(ctx, id, c)
		if err != nil {
			t.Fatalf("read %s: %v", id, err)
		}
		for _, raw := range b.Entries {
			out = append(out, decodeEntry(t, raw))
		}
		c = b.Next
		if c.Index >= b.Total {
			return out, c
		}
	}
}
