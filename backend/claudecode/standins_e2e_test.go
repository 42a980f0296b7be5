//go:build unix

package claudecode

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/baton-app/baton/backend/agent/agenttest"
	"github.com/baton-app/baton/backend/engine"
	"github.com/baton-app/baton/backend/store"
	"github.com/baton-app/baton/backend/testsupport"
)

// Model-sim's workers do real work (issue 27) through the real pinned CLI's
// tools, end to end through the engine and this host, on a real
// third-party Go module in a git repository: a documentation run (shared
// folder) leaves a page per component and the index in docs/, a
// test-coverage run (worktree isolation, then Apply) leaves a test file in
// the package without tests and runs it with go test (its permission
// prompts allowed as a user would); both end completed, the module's own
// go vet and go test pass afterwards, and git shows the new files.
func TestModelSimWorkersDoRealWork(t *testing.T) {
	r := newRig(t, "happy", func(o *Options) { o.IdleStop = 500 * time.Millisecond })

	t.Run("documentation", func(t *testing.T) {
		dir := agenttest.GoModule(t)
		run := runWithWorktrees(t, r, "documentation", dir, "Document this module")
		agenttest.CheckPages(t, dir, run.TasksTotal)
		agenttest.CheckGo(t, dir)
	})
	t.Run("test-coverage", func(t *testing.T) {
		dir := agenttest.GoModule(t)
		base := strings.TrimSpace(testsupport.Git(t, dir, "rev-parse", "HEAD"))
		run := runWithWorktrees(t, r, "test-coverage", dir, "Add tests for the packages without any")
		agenttest.CheckTests(t, dir, base, run.TasksTotal)
		agenttest.CheckGo(t, dir)
	})
}

// runWithWorktrees runs a system template on dir through the rig's host
// with worktrees enabled, allowing every permission prompt, waits for it
// to end completed with every task done, and applies a worktree run.
func runWithWorktrees(t *testing.T, r *rig, id, dir, request string) store.Run {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	tmpl := systemTemplate(t, id)
	st, err := store.Open(filepath.Join(t.TempDir(), "baton.db"), store.WithLogger(quiet))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ev := &events{names: map[string]int{}, start: time.Now()}
	eng, err := engine.New(engine.Options{Store: st, Host: r.host, Templates: fixed{tmpl}, Emitter: ev, Logger: quiet,
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
	run, err := eng.Create(ctx, engine.CreateRequest{TemplateID: id, Cwd: dir, Request: request})
	if err != nil {
		t.Fatal(err)
	}
	if err := eng.Start(ctx, run.ID); err != nil {
		t.Fatal(err)
	}
	allow := allowAll(t, r.host)
	for ctx.Err() == nil {
		snap, err := eng.Snapshot(ctx, run.ID)
		if err != nil || store.Finished(snap.Run.Status) {
			break
		}
		allow(eng, snap)
		time.Sleep(50 * time.Millisecond)
	}
	run, err = eng.Wait(ctx, run.ID)
	snap, _ := eng.Snapshot(context.Background(), run.ID)
	for _, w := range snap.Workers {
		t.Logf("%s %s: %s %s (%v)", w.TaskID, w.Status, w.Summary, w.Error, w.OutputFiles)
	}
	if err != nil || run.Status != "completed" || run.TasksTotal == 0 || run.TasksCompleted != run.TasksTotal {
		ev.mu.Lock()
		t.Logf("events:\n%s", strings.Join(ev.trace, "\n"))
		ev.mu.Unlock()
		t.Fatalf("%s run %s: %d of %d completed: %v %s", id, run.Status, run.TasksCompleted, run.TasksTotal, err, run.Error)
	}
	if tmpl.Config.Worktree() {
		if _, err := eng.Apply(ctx, run.ID); err != nil {
			t.Fatalf("Apply: %v", err)
		}
	}
	return run
}
