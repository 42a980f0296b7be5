package hosts

import (
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/baton-app/baton/backend/claudecodetest"
	"github.com/baton-app/baton/backend/modelsim"
	"github.com/baton-app/baton/backend/session"
	"github.com/baton-app/baton/backend/settings"
)

// TestClaudeCodeHost: the Manager runs the Claude Code host as the settings
// choose it: its status names the CLI's version, sessions run through it
// with their notices on the Manager's channel, the doctor's checks come
// back as a report, and Shutdown ends every child.
func TestClaudeCodeHost(t *testing.T) {
	bin := claudecodetest.Binary(t)
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	sim, err := modelsim.New(modelsim.Options{Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	if err := sim.Start(); err != nil {
		t.Fatal(err)
	}
	defer sim.Shutdown(context.Background())
	home := t.TempDir()
	cfg := settings.Defaults()
	cfg.Host, cfg.ClaudePath = settings.HostClaudeCode, bin
	kinds := NewRegistry(ClaudeCode(ClaudeCodeOptions{StateDir: t.TempDir(), Env: claudecodetest.Env(home, sim.URL())}))
	m := New(cfg, Options{Logger: quiet, Kinds: kinds})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	if st := m.Status(); st.Label != "Claude Code (CLI)" || st.State != StateIdle {
		t.Errorf("status before use: %+v", st)
	}
	// Before it connects, the Manager names the kind; once connected, the
	// CLI it runs: what a run remembers.
	if cur := m.Current(); cur.Kind != "claude-code" || cur.Short != "claude-code" || cur.Path != "" {
		t.Errorf("current host before use: %+v", cur)
	}
	ident, err := m.Identity(ctx)
	if err != nil || ident.Kind != "claude-code" || ident.Path != bin || ident.Version != claudecodetest.Version ||
		ident.Description != "Claude Code CLI "+claudecodetest.Version+" ("+bin+")" {
		t.Errorf("identity: %+v, %v", ident, err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "README.md"), []byte("# x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	id, err := m.Start(ctx, session.StartOptions{Cwd: dir, Message: "Look around.", PermissionMode: "acceptEdits"})
	if err != nil {
		t.Fatal(err)
	}
	if st := m.Status(); st.State != StateConnected || st.Endpoint != bin || st.Page != "Claude Code "+claudecodetest.Version {
		t.Errorf("status in use: %+v", st)
	}
	for done := false; !done; {
		select {
		case n := <-m.Notices():
			if n.SessionID == id && n.Kind == session.NoticeResult {
				done = true
			}
		case <-ctx.Done():
			t.Fatal("no result notice on the Manager's channel")
		}
	}
	list, err := m.List(ctx, false)
	if err != nil || len(list) != 1 || list[0].ID != id {
		t.Errorf("List: %+v %v", list, err)
	}
	r, err := m.Diagnose(ctx, cfg)
	if err != nil || !r.OK || len(r.Checks) != 3 || r.Version != claudecodetest.Version || r.Host != "claude-code" || r.Label != "Claude Code (CLI)" {
		t.Errorf("Diagnose: %+v", r)
	}
	if err := m.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Session(ctx, id); err == nil {
		t.Error("the Manager still answers after Shutdown")
	}

	// A path that is not there: the status says so in one sentence.
	cfg.ClaudePath = filepath.Join(t.TempDir(), "claude")
	m2 := New(cfg, Options{Logger: quiet, Kinds: NewRegistry(ClaudeCode(ClaudeCodeOptions{StateDir: t.TempDir()}))})
	defer m2.Shutdown(context.Background())
	if _, err := m2.List(ctx, true); err == nil || !strings.Contains(m2.Status().Reason, "is not at") {
		t.Errorf("missing CLI: %v, status %+v", err, m2.Status())
	}
}
