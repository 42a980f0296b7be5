//go:build unix

package claudecode

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/baton-app/baton/backend/claudecodetest"
	"github.com/baton-app/baton/backend/doctor"
)

func TestVersions(t *testing.T) {
	if v := ParseVersion("2.1.328 (Claude Code)\n"); v != "2.1.328" {
		t.Errorf("ParseVersion = %q", v)
	}
	if v := ParseVersion("git version 2.39.5"); v != "" {
		t.Errorf("ParseVersion of another program = %q", v)
	}
	for _, c := range []struct {
		a, b string
		want int
	}{{"2.1.328", "2.1.328", 0}, {"2.1.99", "2.1.328", -1}, {"2.2.0", "2.1.328", 1}, {"10.0.0", "9.9.9", 1}} {
		if got := CompareVersions(c.a, c.b); got != c.want {
			t.Errorf("CompareVersions(%s, %s) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
}

// failed returns the first failed check, failing the test when all passed.
func failed(t *testing.T, r doctor.Report) doctor.Check {
	t.Helper()
	for _, c := range r.Checks {
		if !c.OK {
			if r.OK || c.Fix == "" || strings.Count(strings.TrimSuffix(c.Fix, "."), ". ") > 0 {
				t.Errorf("failed check %+v: report OK %v, want one sentence saying what to do", c, r.OK)
			}
			return c
		}
	}
	t.Fatalf("no check failed: %+v", r)
	return doctor.Check{}
}

func TestDoctor(t *testing.T) {
	ctx := context.Background()
	t.Run("missing", func(t *testing.T) {
		c := failed(t, Diagnose(ctx, DoctorOptions{Path: filepath.Join(t.TempDir(), "claude")}))
		if c.Name != "Claude Code CLI" || !strings.Contains(c.Fix, "Install") {
			t.Errorf("missing binary: %+v", c)
		}
	})
	t.Run("too old", func(t *testing.T) {
		old := filepath.Join(t.TempDir(), "claude")
		if err := os.WriteFile(old, []byte("#!/bin/sh\necho '2.0.5 (Claude Code)'\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		r := Diagnose(ctx, DoctorOptions{Path: old})
		c := failed(t, r)
		if c.Name != "Version" || !strings.Contains(c.Fix, "Update") || r.Version != "2.0.5" {
			t.Errorf("old CLI: %+v (version %q)", c, r.Version)
		}
	})
	t.Run("answers", func(t *testing.T) {
		rg := newRig(t, "happy")
		r := Diagnose(ctx, DoctorOptions{Path: rg.host.Path(), BaseEnv: rg.env})
		if !r.OK || len(r.Checks) != 3 || r.Version != claudecodetest.Version || r.Target != rg.host.Path() {
			t.Fatalf("report: %+v", r)
		}
		if want := "Baton can run its sessions with Claude Code " + claudecodetest.Version + " at " + rg.host.Path() + "."; r.Verdict != want {
			t.Errorf("verdict %q, want %q", r.Verdict, want)
		}
		if d := r.Checks[2].Detail; !strings.Contains(d, "answered in") {
			t.Errorf("tiny request: %q", d)
		}
		if m, _ := filepath.Glob(filepath.Join(rg.home, ".claude", "projects", "*", "*.jsonl")); len(m) != 0 {
			t.Errorf("the tiny request left a session: %v", m)
		}
	})
	t.Run("network", func(t *testing.T) {
		bin := claudecodetest.Binary(t)
		env := claudecodetest.Env(t.TempDir(), "http://127.0.0.1:9", "CLAUDE_CODE_MAX_RETRIES=0")
		c := failed(t, Diagnose(ctx, DoctorOptions{Path: bin, BaseEnv: env}))
		if c.Name != "A tiny request" || !strings.Contains(c.Fix, "network") {
			t.Errorf("unreachable model: %+v", c)
		}
	})
	t.Run("login", func(t *testing.T) {
		bin := claudecodetest.Binary(t)
		var env []string
		for _, kv := range claudecodetest.Env(t.TempDir(), "http://127.0.0.1:9") {
			if !strings.HasPrefix(kv, "ANTHROPIC_") {
				env = append(env, kv)
			}
		}
		c := failed(t, Diagnose(ctx, DoctorOptions{Path: bin, BaseEnv: env}))
		if c.Name != "A tiny request" || !strings.Contains(c.Fix, "Log in") {
			t.Errorf("no login: %+v", c)
		}
	})
}
