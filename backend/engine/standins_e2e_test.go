package engine_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/baton-app/baton/backend/agent/agenttest"
	"github.com/baton-app/baton/backend/claude"
	"github.com/baton-app/baton/backend/engine"
	"github.com/baton-app/baton/backend/hosts"
	"github.com/baton-app/baton/backend/session"
	"github.com/baton-app/baton/backend/simulator"
	"github.com/baton-app/baton/backend/store"
	"github.com/baton-app/baton/backend/template"
	"github.com/baton-app/baton/backend/testsupport"
)

// The simulator's workers do real work (issue 27), end to end through real
// Chromium, the simulator page and the Claude Desktop adapter, on a real
// third-party Go module in a git repository: a documentation run (shared
// folder) leaves a page per component and the index in docs/, a
// test-coverage run (worktree isolation, then Apply) leaves a test file in
// the package without tests; both end completed, the module's own go vet
// and go test pass afterwards, and git shows the new files.
func TestSimulatorWorkersDoRealWork(t *testing.T) {
	if testing.Short() {
		t.Skip("needs Chromium; skipped with -short")
	}
	if _, err := os.Stat(chromiumPath); err != nil {
		t.Fatalf("Chromium is needed at %s (install the chromium package): %v", chromiumPath, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	host, _, err := hosts.StartSimulator(ctx, simulator.InstanceOptions{ChromePath: chromiumPath,
		Simulator: simulator.Options{Speed: 100, Logger: quiet}}, claude.Options{Logger: quiet})
	if err != nil {
		t.Fatalf("start the simulator: %v", err)
	}
	defer func() {
		sctx, scancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer scancel()
		if err := host.Close(sctx); err != nil {
			t.Errorf("close the simulator: %v", err)
		}
	}()
	mgr, err := template.New(t.TempDir(), template.Options{Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}

	t.Run("documentation", func(t *testing.T) {
		dir := agenttest.GoModule(t)
		run, worktree := runOnModule(ctx, t, host, mgr, "documentation", dir, "Document this module")
		if worktree {
			t.Fatalf("documentation ran in worktrees")
		}
		agenttest.CheckPages(t, dir, run.TasksTotal)
		agenttest.CheckGo(t, dir)
	})

	t.Run("test-coverage", func(t *testing.T) {
		dir := agenttest.GoModule(t)
		base := strings.TrimSpace(testsupport.Git(t, dir, "rev-parse", "HEAD"))
		run, worktree := runOnModule(ctx, t, host, mgr, "test-coverage", dir, "Add tests for the packages without any")
		if !worktree {
			t.Fatalf("test-coverage did not run in worktrees")
		}
		agenttest.CheckTests(t, dir, base, run.TasksTotal)
		agenttest.CheckGo(t, dir)
	})
}

// runOnModule runs a system template on dir through host with worktrees
// enabled, waits for it to end completed with every task done, and
// applies a worktree run to dir (worktree says it was one).
func runOnModule(ctx context.Context, t *testing.T, host session.Host, mgr *template.Manager, id, dir, request string) (run store.Run, worktree bool) {
	t.Helper()
	tmpl, err := mgr.Get(id)
	if err != nil {
		t.Fatal(err)
	}
	tmpl.Config.AutoConfirm = true
	st, err := store.Open(filepath.Join(t.TempDir(), "baton.db"), store.WithLogger(quiet))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ev := &events{names: map[string]int{}}
	eng, err := engine.New(engine.Options{Store: st, Host: host, Templates: fixed{tmpl}, Emitter: ev, Logger: quiet,
		Home: t.TempDir(), WorktreeRoot: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		sctx, scancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer scancel()
		if err := eng.Shutdown(sctx); err != nil {
			t.Errorf("Shutdown: %v", err)
		}
	}()
	run, err = eng.Create(ctx, engine.CreateRequest{TemplateID: id, Cwd: dir, Request: request})
	if err != nil {
		t.Fatal(err)
	}
	if err := eng.Start(ctx, run.ID); err != nil {
		t.Fatal(err)
	}
	run, err = eng.Wait(ctx, run.ID)
	if err != nil {
		t.Fatal(err)
	}
	snap, err := eng.Snapshot(ctx, run.ID)
	if err != nil {
		t.Fatal(err)
	}
	if run.Status != "completed" || run.TasksTotal == 0 || run.TasksCompleted != run.TasksTotal {
		for _, w := range snap.Workers {
			t.Logf("%s: %s %s %s", w.TaskID, w.Status, w.Summary, w.Error)
		}
		t.Fatalf("%s run %s: %d of %d completed: %s", id, run.Status, run.TasksCompleted, run.TasksTotal, run.Error)
	}
	for _, w := range snap.Workers {
		t.Logf("%s: %s (%v)", w.TaskID, w.Summary, w.OutputFiles)
	}
	if tmpl.Config.Worktree() {
		if _, err := eng.Apply(ctx, run.ID); err != nil {
			t.Fatalf("Apply: %v", err)
		}
	}
	return run, tmpl.Config.Worktree()
}
