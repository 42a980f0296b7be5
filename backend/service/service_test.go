package service

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/baton-app/baton/backend/hosts"
	"github.com/baton-app/baton/backend/settings"
)

func quiet() *slog.Logger { return slog.New(slog.DiscardHandler) }

func TestOpenAndClose(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("BATON_CONFIG_DIR", dir)
	s, err := Open(Options{Logger: quiet(), Host: HostOverrides{Host: "sim", Scenario: "happy", Speed: 5}})
	if err != nil {
		t.Fatal(err)
	}
	if s.store == nil || s.Templates == nil || s.Settings == nil || s.Hosts == nil || s.engine == nil || s.Runs == nil {
		t.Fatalf("Open left a service out: %+v", s)
	}
	if s.Inbox != nil {
		t.Fatal("the inbox watcher is opened only for the desktop")
	}
	if got := s.Hosts.Status().Host; got != settings.HostSimulator {
		t.Fatalf("host = %s, want the simulator the override asks for", got)
	}
	if _, err := os.Stat(filepath.Join(dir, "baton.db")); err != nil {
		t.Fatalf("no history database in the config directory: %v", err)
	}
	s.Restore() // nothing to restore; Close waits for it
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := s.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Hosts.Host(ctx); !errors.Is(err, hosts.ErrClosed) {
		t.Fatalf("the host manager still connects after Close: %v", err)
	}
}

func TestOpenRefusesABadHost(t *testing.T) {
	t.Setenv("BATON_CONFIG_DIR", t.TempDir())
	_, err := Open(Options{Logger: quiet(), Host: HostOverrides{Host: "cloud"}})
	var oe *OpenError
	if !errors.As(err, &oe) || oe.Stage != StageHost || !strings.Contains(err.Error(), "--host must be sim, desktop or claude-code") {
		t.Fatalf("Open with --host cloud: %v", err)
	}
	// A CLI path implies the Claude Code host.
	kinds := hostKinds(t.TempDir(), HostOverrides{})
	cfg, err := hostSettings(kinds, settings.Defaults(), HostOverrides{Claude: "/opt/claude/bin/claude"})
	if err != nil || cfg.Host != settings.HostClaudeCode || cfg.ClaudePath != "/opt/claude/bin/claude" {
		t.Fatalf("hostSettings(--claude) = %+v, %v", cfg, err)
	}
	if cfg, err := hostSettings(kinds, settings.Defaults(), HostOverrides{Host: "claude-code"}); err != nil || cfg.Host != settings.HostClaudeCode || cfg.ClaudePath != "" {
		t.Fatalf("hostSettings(--host claude-code) = %+v, %v", cfg, err)
	}
	// A CDP endpoint implies Claude Desktop.
	cfg, err = hostSettings(kinds, settings.Defaults(), HostOverrides{CDP: "http://127.0.0.1:9333"})
	if err != nil || cfg.Host != settings.HostDesktop || cfg.CDPEndpoint != "http://127.0.0.1:9333" {
		t.Fatalf("hostSettings(--cdp) = %+v, %v", cfg, err)
	}
	// A host named on its own wins over the one a field implies.
	cfg, err = hostSettings(kinds, settings.Defaults(), HostOverrides{Host: "sim", CDP: "http://127.0.0.1:9333"})
	if err != nil || cfg.Host != settings.HostSimulator || cfg.CDPEndpoint != "http://127.0.0.1:9333" {
		t.Fatalf("hostSettings(--host sim --cdp) = %+v, %v", cfg, err)
	}
}

func TestEventsReachEverySubscriberInOrder(t *testing.T) {
	t.Parallel()
	var e Events
	var got []string
	e.Subscribe(func(name string, payload any) { got = append(got, "a:"+name) })
	e.Subscribe(func(name string, payload any) { got = append(got, "b:"+name) })
	e.Emit("run:created", nil)
	if strings.Join(got, " ") != "a:run:created b:run:created" {
		t.Fatalf("got %v", got)
	}
}
