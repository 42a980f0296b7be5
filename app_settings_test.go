package main

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/baton-app/baton/backend/service"
	"github.com/baton-app/baton/backend/settings"
	"github.com/baton-app/baton/backend/view"
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
	form := view.SettingsOf(settings.Defaults())
	form.Host, form.CDPEndpoint = string(settings.HostDesktop), closed
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
	if p := cli(t, a.GetSettings()); p.InUse || p.Path != bin || p.Version != "" {
		t.Fatalf("the CLI seen from the simulator = %+v", p)
	}
	if _, err := a.Settings.Update(func(s *settings.Settings) { s.Host = settings.HostClaudeCode }); err != nil {
		t.Fatal(err)
	}
	if p := cli(t, a.GetSettings()); !p.InUse || p.Path != "" || p.Version != "2.1.999" || p.Problem != "" {
		t.Fatalf("the CLI in use = %+v", p)
	}
}

// cli is what the settings view says of the Claude Code CLI kind.
func cli(t *testing.T, v view.SettingsView) view.HostProgram {
	t.Helper()
	for _, p := range v.Programs {
		if p.Host == string(settings.HostClaudeCode) {
			return p
		}
	}
	t.Fatalf("the settings view names no program of the claude-code kind: %+v", v.Programs)
	return view.HostProgram{}
}

// Settings lists the registered host kinds, in order, each with what it is
// and the settings it reads.
func TestHostKindsBinding(t *testing.T) {
	a := hostApp(t)
	kinds := a.HostKinds()
	var names []string
	for _, k := range kinds {
		names = append(names, k.Name)
		if k.Label == "" || k.Description == "" || len(k.Fields) == 0 {
			t.Errorf("kind %s is not described: %+v", k.Name, k)
		}
		for _, f := range k.Fields {
			if !slices.Contains(settings.Keys(), f) {
				t.Errorf("kind %s owns %q, which is not a setting", k.Name, f)
			}
		}
	}
	if want := []string{"simulator", "desktop", "claude-code"}; !slices.Equal(names, want) {
		t.Errorf("kinds %v, want %v", names, want)
	}
	if i := slices.IndexFunc(kinds, func(k view.HostKind) bool { return k.Name == "desktop" }); i < 0 || !slices.Contains(kinds[i].Fields, "cdpEndpoint") {
		t.Errorf("Claude Desktop does not own its endpoint: %+v", kinds)
	}
}
