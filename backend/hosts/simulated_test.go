package hosts

import (
	"context"
	"io"
	"log/slog"
	"testing"

	"github.com/baton-app/baton/backend/settings"
)

// The engine labels costs simulated on the simulator only.
func TestSimulated(t *testing.T) {
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	for host, want := range map[settings.Host]bool{settings.HostSimulator: true, settings.HostDesktop: false, settings.HostClaudeCode: false} {
		cfg := settings.Defaults()
		cfg.Host = host
		m := New(cfg, Options{Logger: quiet, Kinds: testKinds(t, 1)})
		if got := m.Simulated(); got != want {
			t.Errorf("%s: Simulated() = %v, want %v", host, got, want)
		}
		_ = m.Shutdown(context.Background())
	}
}
