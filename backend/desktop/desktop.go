// Package desktop holds what the desktop window needs before and while it
// runs: the display check, the build information the window shows, and the
// start-up check used by the smoke test.
package desktop

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"
)

// Info describes this build of Baton to the frontend.
type Info struct {
	Version   string `json:"version"`
	Commit    string `json:"commit"`
	BuildDate string `json:"buildDate"`
	Platform  string `json:"platform"`
}

// ErrNoDisplay means the process has no graphical session to open a window in.
var ErrNoDisplay = errors.New("baton needs a desktop session to open its window, and neither DISPLAY nor WAYLAND_DISPLAY is set; run it from a desktop session, or run \"baton help\" for the commands that need no window")

// CheckDisplay reports ErrNoDisplay when a window cannot be opened on this
// platform. Only X11/Wayland systems need an environment variable for it;
// macOS and Windows always have their desktop.
func CheckDisplay(goos string, getenv func(string) string) error {
	switch goos {
	case "darwin", "windows":
		return nil
	}
	if getenv("DISPLAY") == "" && getenv("WAYLAND_DISPLAY") == "" {
		return ErrNoDisplay
	}
	return nil
}

// StartupCheck proves that the page loaded and reached the Go bindings. When
// enabled (BATON_SMOKE=1) it quits the app with exit code 0 as soon as Ready
// is called, or with exit code 1 when Ready was not called within the
// timeout. When disabled every method is a no-op.
type StartupCheck struct {
	enabled bool
	timeout time.Duration
	ready   chan struct{}
	once    sync.Once
	code    atomic.Int32

	mu     sync.Mutex
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// NewStartupCheck returns a check that is active only when enabled is true.
func NewStartupCheck(enabled bool, timeout time.Duration) *StartupCheck {
	return &StartupCheck{enabled: enabled, timeout: timeout, ready: make(chan struct{})}
}

// Enabled reports whether the check is active.
func (c *StartupCheck) Enabled() bool { return c.enabled }

// Start begins waiting for Ready. When Ready arrives first, onReady is
// called (the app quits normally); when the timeout comes first, onTimeout is
// called (the app may not even have a running main loop then, so it exits
// hard). Neither may block until Stop returns.
func (c *StartupCheck) Start(ctx context.Context, onReady, onTimeout func()) {
	if !c.enabled {
		return
	}
	ctx, cancel := context.WithCancel(ctx)
	c.mu.Lock()
	c.cancel = cancel
	c.mu.Unlock()
	c.code.Store(1) // until Ready arrives, an early exit is a failure
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		timer := time.NewTimer(c.timeout)
		defer timer.Stop()
		select {
		case <-c.ready:
			slog.Info("smoke check: the page called a binding", "component", "desktop")
			c.code.Store(0)
			onReady()
		case <-timer.C:
			slog.Error("smoke check: the page did not call a binding in time", "component", "desktop", "timeout", c.timeout)
			onTimeout()
		case <-ctx.Done():
		}
	}()
}

// Ready records that the page called a binding.
func (c *StartupCheck) Ready() {
	c.once.Do(func() { close(c.ready) })
}

// Stop ends the wait and waits for its goroutine.
func (c *StartupCheck) Stop() {
	c.mu.Lock()
	cancel := c.cancel
	c.mu.Unlock()
	if cancel != nil {
		cancel()
	}
	c.wg.Wait()
}

// ExitCode is the process exit code the check asks for: 0 when disabled or
// when the page called a binding, 1 otherwise.
func (c *StartupCheck) ExitCode() int {
	return int(c.code.Load())
}
