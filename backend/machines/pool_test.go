//go:build linux

package machines_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/baton-app/baton/backend/claudecode"
	"github.com/baton-app/baton/backend/claudecodetest"
	"github.com/baton-app/baton/backend/machines"
	"github.com/baton-app/baton/backend/session"
	"github.com/baton-app/baton/backend/worktree"
)

// A run's two workers through the Router: the pool places the first on the
// other machine (its one place), the second finds it full and runs here;
// both are real CLIs answered by one model-sim (through the reverse
// forward there), and both branches merge into the local run branch in
// dependency order, the remote one fetched back first.
func TestPoolPlacesWorkersAndBringsTheirBranchesBack(t *testing.T) {
	r := newRig(t, "happy")
	ctx := timeout(t, 5*time.Minute)
	local := localRepo(t, map[string]string{"README.md": "# shop\n", "docs/guide.md": "# Guide\n\nHow to shop.\n"})
	run, err := worktree.Start(ctx, local, t.TempDir(), "run1")
	if err != nil {
		t.Fatal(err)
	}
	tg := r.target()
	tg.MaxWorkers = 1
	notices := make(chan session.Notice, 64)
	pool, err := machines.NewPool(machines.PoolOptions{Targets: []machines.Target{tg}, StateDir: t.TempDir(), Notices: notices, Logger: quiet,
		Machine: machines.Options{ClientOptions: r.s.ClientOptions(), Env: r.s.CLIEnv()},
		Host:    claudecode.Options{IdleStop: -1, StopGrace: 2 * time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_ = pool.Close(ctx)
	})
	here, err := claudecode.New(claudecode.Options{Path: claudecodetest.Binary(t), StateDir: t.TempDir(), Logger: quiet, IdleStop: -1, StopGrace: 2 * time.Second,
		BaseEnv: claudecodetest.Env(t.TempDir(), r.sim.URL())})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_ = here.Close(ctx)
	})
	router := &machines.Router{Local: here, Pool: pool}

	if got := pool.Place("run1", "task_001", []string{"other"}); got != "other" {
		t.Fatalf("task_001 placed on %q", got)
	}
	if got := pool.Place("run1", "task_002", []string{"other"}); got != "" {
		t.Fatalf("task_002 placed on %q although other is full", got)
	}
	id1, id2 := session.ID("local___orch_run1_worker_task_001"), session.ID("local___orch_run1_worker_task_002")
	dir1, err := pool.StartTask(ctx, local, "run1", "task_001", run.Branch, id1)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(dir1, r.s.Workspace) {
		t.Fatalf("task_001's folder %s is not in the other machine's workspace", dir1)
	}
	t2, err := run.StartTask(ctx, "task_002")
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []struct {
		id   session.ID
		cwd  string
		task string
	}{{id1, dir1, "task_001"}, {id2, t2.Dir, "task_002"}} {
		if _, err := router.Start(ctx, session.StartOptions{ID: w.id, Cwd: w.cwd, PermissionMode: "acceptEdits",
			Message: strings.ReplaceAll(workerPrompt, "task_001", w.task)}); err != nil {
			t.Fatal(err)
		}
	}
	for _, id := range []session.ID{id1, id2} {
		h := here
		if id == id1 {
			var ok bool
			if h, ok = pool.Host(id); !ok {
				t.Fatal("the pool does not know task_001's session")
			}
		}
		if res := waitTurns(t, h, id, 1); res[0].IsError || !strings.Contains(res[0].Result, "completion") {
			t.Fatalf("%s: %+v", id, res[0])
		}
		if info, err := router.Session(ctx, id); err != nil || info.ID != id {
			t.Fatalf("the router's %s: %+v %v", id, info, err)
		}
	}
	// task_001 ran there (its transcript is in the CLI's home there) and
	// task_002 here.
	if m, _ := filepath.Glob(filepath.Join(r.s.CLIHome, ".claude", "projects", "*", "*.jsonl")); len(m) != 1 {
		t.Fatalf("transcripts on the other machine: %v", m)
	}
	if _, err := pool.Bring(ctx, "run1", "task_001", "task_001: notes"); err != nil {
		t.Fatal(err)
	}
	if _, err := run.Commit(ctx, "task_002", "task_002: notes"); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"task_001", "task_002"} {
		if _, err := run.Merge(ctx, id, "Baton: merge "+id); err != nil {
			t.Fatalf("merge %s: %v", id, err)
		}
	}
	files := git(t, local, "diff", "--name-only", run.Base, run.Branch)
	if !strings.Contains(files, "docs/task_001-notes.md") || !strings.Contains(files, "docs/task_002-notes.md") {
		t.Fatalf("the run branch changes %q", files)
	}
	pool.Release("run1", "task_001")
	if got := pool.Place("run1", "task_003", []string{"other"}); got != "other" {
		t.Fatalf("after release, task_003 placed on %q", got)
	}
	if err := pool.Cleanup(ctx, "run1"); err != nil {
		t.Fatal(err)
	}
	if out, err := r.s.Run(ctx, "ls -A "+filepath.Dir(dir1)+" 2>/dev/null | wc -l"); err != nil || strings.TrimSpace(out) != "0" {
		t.Errorf("after cleanup the run's folder there holds %q (%v)", out, err)
	}
}
