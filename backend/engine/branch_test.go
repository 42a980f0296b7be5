package engine

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/baton-app/baton/backend/isolation"
	"github.com/baton-app/baton/backend/worktree"
)

// A finished worktree run's branch: its diff, a changed file to open, and
// its tasks applied one by one, a task whose dependency is left out
// refused.
func TestWorktreeApplySomeTasks(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	tasks := plan(planned{"t1", 5, nil}, planned{"t2", 5, []string{"t1"}}, planned{"t3", 5, nil})
	h, repo := newIsoHarness(t, nil, scripted(tasks, func(h *fakeHost, s *fakeSession, task string, _ bool) bool {
		switch task {
		case "t1":
			_ = os.WriteFile(filepath.Join(s.opts.Cwd, "lib.go"), []byte("package lib\n"), 0o644)
		case "t2":
			b, _ := os.ReadFile(filepath.Join(s.opts.Cwd, "lib.go"))
			_ = os.WriteFile(filepath.Join(s.opts.Cwd, "lib.go"), append(b, "func F() {}\n"...), 0o644)
		case "t3":
			_ = os.WriteFile(filepath.Join(s.opts.Cwd, "README.md"), []byte("# Project\n\nBy t3.\n"), 0o644)
		}
		reportDone(h, s, task)
		return true
	}))
	id := h.createIn(repo, nil)
	if run := h.wait(id); run.Status != "completed" {
		t.Fatalf("run = %s: %s", run.Status, run.Error)
	}

	// The diff of the whole branch and of one task, both versions.
	all, err := h.eng.Diff(ctx, id, "")
	if err != nil || len(all) != 2 {
		t.Fatalf("diff = %+v, %v", all, err)
	}
	t2, err := h.eng.Diff(ctx, id, "t2")
	if err != nil || len(t2) != 1 || t2[0].Old != "package lib\n" || t2[0].New != "package lib\nfunc F() {}\n" || t2[0].Status != "modified" {
		t.Fatalf("diff of t2 = %+v, %v", t2, err)
	}
	// A changed file opens from a read-only copy of the branch's version.
	p, err := h.eng.ChangedFile(ctx, id, "lib.go")
	if err != nil || readFile(t, p) != "package lib\nfunc F() {}\n" || strings.HasPrefix(p, repo) {
		t.Fatalf("changed file = %s, %v", p, err)
	}
	if st, _ := os.Stat(p); st.Mode().Perm()&0o222 != 0 {
		t.Fatalf("the copy is writable: %v", st.Mode())
	}
	if _, err := h.eng.ChangedFile(ctx, id, "../etc/passwd"); !errors.Is(err, ErrBadRequest) {
		t.Fatalf("a file the run did not change: %v", err)
	}

	// t2 without t1, whose changes it was built on, is refused.
	_, err = h.eng.ApplyTasks(ctx, id, []string{"t2"})
	var lo *isolation.LeftOutError
	if !errors.As(err, &lo) || lo.Task != "t2" || lo.Dependency != "t1" || !errors.Is(err, ErrBadRequest) {
		t.Fatalf("t2 alone = %v", err)
	}
	a, err := h.eng.ApplyTasks(ctx, id, []string{"t2", "t1"})
	if err != nil || a.Into != "main" {
		t.Fatalf("t1 and t2 = %+v, %v", a, err)
	}
	if readFile(t, filepath.Join(repo, "lib.go")) != "package lib\nfunc F() {}\n" || readFile(t, filepath.Join(repo, "README.md")) != "# Project\n" {
		t.Fatal("the user's folder does not hold exactly t1 and t2")
	}
	snap, _ := h.eng.Snapshot(ctx, id)
	applied := map[string]bool{}
	for _, tc := range snap.Worktree.Tasks {
		applied[tc.TaskID] = tc.Applied
	}
	if !applied["t1"] || !applied["t2"] || applied["t3"] || snap.Worktree.Outcome != "" {
		t.Fatalf("after t1 and t2: applied %v, outcome %q", applied, snap.Worktree.Outcome)
	}
	if p, err := h.eng.ChangedFile(ctx, id, "lib.go"); err != nil || p != filepath.Join(repo, "lib.go") {
		t.Fatalf("an applied file opens at %s, %v", p, err)
	}
	if _, err := h.eng.ApplyTasks(ctx, id, []string{"t1"}); err == nil || !strings.Contains(err.Error(), "applied already") {
		t.Fatalf("t1 again = %v", err)
	}
	// The last task applied: the branch and its copies are gone.
	if _, err := h.eng.ApplyTasks(ctx, id, []string{"t3"}); err != nil {
		t.Fatal(err)
	}
	snap, _ = h.eng.Snapshot(ctx, id)
	if snap.Worktree.Outcome != "applied" || !slices.Equal(branchList(t, repo), []string{"main"}) {
		t.Fatalf("after every task: outcome %q, branches %v", snap.Worktree.Outcome, branchList(t, repo))
	}
	if _, err := os.Stat(filepath.Join(h.worktreeRoot, id+"-files")); !os.IsNotExist(err) {
		t.Fatalf("the copies are left: %v", err)
	}
	if h.rec.count(EventWorktree) < 3 {
		t.Errorf("worktree events = %d", h.rec.count(EventWorktree))
	}
	if _, err := h.eng.Diff(ctx, id, ""); !errors.Is(err, ErrBadRequest) {
		t.Errorf("the diff of a gone branch: %v", err)
	}
}

// Push records where the branch went; an unknown remote is refused.
func TestWorktreePushRecorded(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	tasks := plan(planned{"t1", 5, nil})
	h, repo := newIsoHarness(t, nil, scripted(tasks, func(h *fakeHost, s *fakeSession, task string, _ bool) bool {
		_ = os.WriteFile(filepath.Join(s.opts.Cwd, "new.txt"), []byte("new\n"), 0o644)
		reportDone(h, s, task)
		return true
	}))
	bare := filepath.Join(t.TempDir(), "remote.git")
	if _, err := worktree.Git(ctx, repo, nil, "init", "-q", "--bare", bare); err != nil {
		t.Fatal(err)
	}
	if _, err := worktree.Git(ctx, repo, nil, "remote", "add", "up", bare); err != nil {
		t.Fatal(err)
	}
	id := h.createIn(repo, nil)
	h.wait(id)
	if rs, err := h.eng.Remotes(ctx, id); err != nil || len(rs) != 1 || rs[0].Name != "up" {
		t.Fatalf("remotes = %v, %v", rs, err)
	}
	if _, err := h.eng.Push(ctx, id, "nowhere"); !errors.Is(err, ErrBadRequest) {
		t.Fatalf("push to an unknown remote = %v", err)
	}
	if _, err := h.eng.Push(ctx, id, "up"); err != nil {
		t.Fatal(err)
	}
	if err := h.eng.NotePullRequest(ctx, id, "up", "https://example.com/pr/1"); err != nil {
		t.Fatal(err)
	}
	snap, _ := h.eng.Snapshot(ctx, id)
	w := snap.Worktree
	if len(w.Pushes) != 1 || w.Pushes[0].Remote != "up" || w.PullRequest == nil || w.PullRequest.URL != "https://example.com/pr/1" {
		t.Fatalf("pushes %+v, pull request %+v", w.Pushes, w.PullRequest)
	}
	if out, _ := worktree.Git(ctx, bare, nil, "rev-parse", worktree.RunBranch(id)); strings.TrimSpace(out) != w.Tasks[0].Commit {
		t.Fatalf("the remote holds %q, the task's merge is %s", out, w.Tasks[0].Commit)
	}
}
