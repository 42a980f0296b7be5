package claude

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"testing"
	"time"

	"github.com/baton-app/baton/backend/chrome"
	"github.com/baton-app/baton/backend/session"
	"github.com/baton-app/baton/backend/simulator"
)

// The adapter is an session.HostLink: a browser that dies (the host was
// killed) is noticed at once: the link goes down and Changed is closed.
func TestLinkNoticesADeadBrowserAtOnce(t *testing.T) {
	needBrowser(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	b, err := chrome.Launch(ctx, chrome.LaunchOptions{Path: chromiumPath, Headless: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		sctx, scancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer scancel()
		_ = b.Shutdown(sctx)
	})
	u, err := chrome.ParseEndpoint(b.Endpoint(), false)
	if err != nil {
		t.Fatal(err)
	}
	sim, err := simulator.New(simulator.Options{Speed: 200, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	if err := sim.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		sctx, scancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer scancel()
		_ = sim.Shutdown(sctx)
	})
	if _, err := chrome.OpenPage(ctx, u, sim.URL()); err != nil {
		t.Fatal(err)
	}
	h, err := Dial(ctx, chrome.Config{Endpoint: u.String(), PagePatterns: []string{sim.PageURL()}, Logger: slog.New(slog.DiscardHandler)}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cctx, ccancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer ccancel()
		_ = h.Close(cctx)
	})
	l := h.Link()
	if !l.Up || l.Changed == nil {
		t.Fatalf("link after Dial = %+v", l)
	}
	killed := time.Now()
	if err := b.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	select {
	case <-l.Changed:
	case <-time.After(5 * time.Second):
		t.Fatal("the dead browser was not noticed within 5 s")
	}
	if d := time.Since(killed); d > 2*time.Second {
		t.Errorf("the dead browser was noticed after %s", d)
	}
	if down := h.Link(); down.Up || down.Reason == "" {
		t.Fatalf("link after the browser died = %+v", down)
	}
}

// A call cut by a lost browser says the host is lost, even before the link
// noticed, so the engine waits for the host instead of ending the run in
// error; it still says what was lost.
func TestLostBrowserIsALostHost(t *testing.T) {
	err := (&Host{}).mapErr(fmt.Errorf("read x: %w: EOF", chrome.ErrConnectionLost))
	if !errors.Is(err, session.ErrHostLost) || !errors.Is(err, chrome.ErrConnectionLost) {
		t.Fatalf("mapErr = %v", err)
	}
	if other := (&Host{}).mapErr(errors.New("boom")); errors.Is(other, session.ErrHostLost) {
		t.Errorf("another error became a lost host: %v", other)
	}
}
