package desktop

import (
	"context"
	"errors"
	"testing"
	"time"
)

func TestCheckDisplay(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		goos string
		env  map[string]string
		want error
	}{
		{"linux without display", "linux", nil, ErrNoDisplay},
		{"linux with X11", "linux", map[string]string{"DISPLAY": ":0"}, nil},
		{"linux with Wayland", "linux", map[string]string{"WAYLAND_DISPLAY": "wayland-0"}, nil},
		{"freebsd without display", "freebsd", nil, ErrNoDisplay},
		{"macOS never needs a variable", "darwin", nil, nil},
		{"windows never needs a variable", "windows", nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := CheckDisplay(tt.goos, func(k string) string { return tt.env[k] })
			if !errors.Is(err, tt.want) {
				t.Fatalf("CheckDisplay() = %v, want %v", err, tt.want)
			}
		})
	}
}

func TestStartupCheckReady(t *testing.T) {
	t.Parallel()
	c := NewStartupCheck(true, time.Minute)
	quit := make(chan struct{})
	c.Start(context.Background(), func() { close(quit) }, func() { t.Error("timeout reported although Ready came first") })
	if got := c.ExitCode(); got != 1 {
		t.Fatalf("exit code before Ready = %d, want 1", got)
	}
	c.Ready()
	c.Ready() // a second call is harmless
	select {
	case <-quit:
	case <-time.After(10 * time.Second):
		t.Fatal("quit was not called after Ready")
	}
	c.Stop()
	if got := c.ExitCode(); got != 0 {
		t.Fatalf("exit code after Ready = %d, want 0", got)
	}
}

func TestStartupCheckTimeout(t *testing.T) {
	t.Parallel()
	c := NewStartupCheck(true, 10*time.Millisecond)
	timedOut := make(chan struct{})
	c.Start(context.Background(), func() { t.Error("ready reported although Ready was never called") }, func() { close(timedOut) })
	select {
	case <-timedOut:
	case <-time.After(10 * time.Second):
		t.Fatal("onTimeout was not called after the timeout")
	}
	c.Stop()
	if got := c.ExitCode(); got != 1 {
		t.Fatalf("exit code after timeout = %d, want 1", got)
	}
}

func TestStartupCheckStopWithoutQuit(t *testing.T) {
	t.Parallel()
	c := NewStartupCheck(true, time.Minute)
	called := false
	c.Start(context.Background(), func() { called = true }, func() { called = true })
	c.Stop()
	if called {
		t.Fatal("a callback ran although the app stopped first")
	}
	if got := c.ExitCode(); got != 1 {
		t.Fatalf("exit code when stopped before Ready = %d, want 1", got)
	}
}

func TestStartupCheckDisabled(t *testing.T) {
	t.Parallel()
	c := NewStartupCheck(false, time.Millisecond)
	c.Start(context.Background(), func() { t.Error("onReady called while disabled") }, func() { t.Error("onTimeout called while disabled") })
	c.Ready()
	c.Stop()
	if got := c.ExitCode(); got != 0 {
		t.Fatalf("exit code while disabled = %d, want 0", got)
	}
}
