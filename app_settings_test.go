package main

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/baton-app/baton/backend/service"
	"github.com/baton-app/baton/backend/settings"
)

// hostApp is an App over the settings and host connection of a fresh
// configuration directory, with the service's host test.
func hostApp(t *testing.T) *App {
	t.Helper()
	t.Setenv("BATON_CONFIG_DIR", t.TempDir())
	svc, err := service.OpenHosts(service.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = svc.Close(context.Background()) })
	return NewApp(Services{Settings: svc.Settings, Hosts: svc.Hosts, TestHost: svc.TestHost})
}

// Test connection returns the host test's report for the form as it is,
// and a sentence for a form that cannot be used.
func TestTestConnectionBinding(t *testing.T) {
	a := hostApp(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + l.Addr().String()
	l.Close()
	form := settings.Defaults()
	form.Host, form.CDPEndpoint = settings.HostDesktop, closed
	r, err := a.TestConnection(form)
	if err != nil || r.OK || r.Host != "desktop" || r.Label != "Claude Desktop" || len(r.Checks) == 0 {
		t.Fatalf("TestConnection(desktop on a closed port) = %+v, %v", r, err)
	}
	form.Host = "cloud"
	_, err = a.TestConnection(form)
	if err == nil || err.Error() != sentence(err.Error()) || !strings.Contains(err.Error(), `Host must be "simulator", "desktop" or "claude-code", not "cloud"`) {
		t.Fatalf("TestConnection(host cloud) error = %v", err)
	}
}

// Settings offers the Claude Code CLI it finds while another host is in
// use, and shows its version while it is the host.
func TestSettingsViewFindsTheCLI(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the stand-in CLI is a shell script")
	}
	a := hostApp(t)
	bin := filepath.Join(t.TempDir(), "claude")
	if err := os.WriteFile(bin, []byte("#!/bin/sh\necho '2.1.999 (Claude Code)'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Settings.Update(func(s *settings.Settings) { s.ClaudePath = bin }); err != nil {
		t.Fatal(err)
	}
	if v := a.GetSettings(); v.ClaudeFound != bin || v.ClaudeVersion != "" {
		t.Fatalf("settings view on the simulator = %+v", v)
	}
	if _, err := a.Settings.Update(func(s *settings.Settings) { s.Host = settings.HostClaudeCode }); err != nil {
		t.Fatal(err)
	}
	if v := a.GetSettings(); v.ClaudeFound != "" || v.ClaudeVersion != "2.1.999" || v.ClaudeProblem != "" {
		t.Fatalf("settings view on the CLI = %+v", v)
	}
}
