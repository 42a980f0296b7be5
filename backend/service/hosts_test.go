package service

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/baton-app/baton/backend/settings"
)

// TestHostTest: the host test opens no database, tests the host the
// settings it is given choose (not the one in use), reports it in the
// shared report named by its kind, and refuses settings that cannot be used.
func TestHostTest(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("BATON_CONFIG_DIR", dir)
	s, err := OpenHosts(Options{Logger: quiet(), Host: HostOverrides{Host: "sim"}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close(context.Background())
	if s.store != nil || s.engine != nil || s.Runs != nil {
		t.Fatal("OpenHosts opened more than the settings and the host connection")
	}
	if _, err := os.Stat(filepath.Join(dir, "baton.db")); !os.IsNotExist(err) {
		t.Fatalf("OpenHosts made a history database: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + l.Addr().String()
	l.Close()
	desktop := settings.Defaults()
	desktop.Host, desktop.CDPEndpoint = settings.HostDesktop, closed
	r, err := s.TestHost(ctx, desktop)
	if err != nil || r.OK || r.Host != "desktop" || r.Label != "Claude Desktop" {
		t.Fatalf("TestHost(desktop on a closed port) = %+v, %v", r, err)
	}
	if c, failed := r.Failed(); !failed || c.Name != "endpoint" || !strings.Contains(c.Fix, "--remote-debugging-port") {
		t.Fatalf("the endpoint check does not say how to start Claude Desktop: %+v", r.Checks)
	}
	if s.Hosts.Status().Host != settings.HostSimulator {
		t.Fatalf("the test changed the host in use: %+v", s.Hosts.Status())
	}

	cli := settings.Defaults()
	cli.Host, cli.ClaudePath = settings.HostClaudeCode, filepath.Join(t.TempDir(), "claude")
	r, err = s.TestHost(ctx, cli)
	if c, failed := r.Failed(); err != nil || r.Host != "claude-code" || !failed || c.Name != "Claude Code CLI" || !strings.Contains(c.Fix, "Install Claude Code") {
		t.Fatalf("TestHost(a missing CLI) = %+v, %v", r, err)
	}

	bad := settings.Defaults()
	bad.Host = "cloud"
	if _, err := s.TestHost(ctx, bad); !errors.Is(err, settings.ErrInvalid) || !strings.Contains(err.Error(), `host must be "simulator", "desktop" or "claude-code", not "cloud"`) {
		t.Fatalf("TestHost(host cloud) = %v", err)
	}
	bad = settings.Defaults()
	bad.PollIntervalMs = 1
	if _, err := s.TestHost(ctx, bad); !errors.Is(err, settings.ErrInvalid) {
		t.Fatalf("TestHost(poll interval 1 ms) = %v", err)
	}
}
