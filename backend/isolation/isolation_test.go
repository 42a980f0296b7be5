package isolation

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/baton-app/baton/backend/store"
	"github.com/baton-app/baton/backend/testsupport"
	"github.com/baton-app/baton/backend/worktree"
)

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

// project makes a git repository with one commit of files; the run works
// in its subfolder sub ("" the top).
func project(t *testing.T, files map[string]string) string {
	t.Helper()
	return testsupport.GitRepo(t, filepath.Join(t.TempDir(), "repo"), files)
}

func done(ids ...string) func(string) bool {
	return func(id string) bool {
		for _, d := range ids {
			if d == id {
				return true
			}
		}
		return false
	}
}

// Two tasks that change different files merge in dependency order; a task
// starts only once its completed dependencies are merged; the run's
// worktree holds both; the run ends with its branch left for Apply.
func TestWorkspaceMergesInDependencyOrder(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	repo := project(t, map[string]string{"a.txt": "a\n", "docs/b.txt": "b\n"})
	testsupport.WriteFile(t, filepath.Join(repo, "a.txt"), "uncommitted\n")
	w := New(nil, filepath.Join(repo, "docs"), filepath.Join(t.TempDir(), "data"), "orch_t1", quiet)
	if msg := w.Created([]string{"a.txt"}); !strings.Contains(msg, "Your uncommitted changes (a.txt) are not part of this run") {
		t.Errorf("created: %q", msg)
	}
	if w.Started() || w.RunCwd() != "" || w.TaskDir("t1") != "" {
		t.Fatal("a new workspace has a branch")
	}
	note, err := w.Open(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(note, "baton/orch_t1") || !strings.Contains(note, "uncommitted") {
		t.Errorf("open note: %q", note)
	}
	if again, err := w.Open(ctx); err != nil || again != "" {
		t.Errorf("second open: %q, %v", again, err)
	}
	tasks := []store.Task{{ID: "t1", Title: "One"}, {ID: "t2", Title: "Two", Dependencies: []string{"t1"}}}
	cwd, err := w.TaskCwd(ctx, "t1", true)
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Base(cwd) != "docs" || w.TaskDir("t1") != cwd {
		t.Errorf("task folder %s (dir %s): not the run's subfolder in the task's worktree", cwd, w.TaskDir("t1"))
	}
	if target, err := os.Readlink(filepath.Join(cwd, worktree.BatonDir)); err != nil || target != filepath.Join(repo, "docs", worktree.BatonDir) {
		t.Errorf("mailbox link = %q, %v", target, err)
	}
	testsupport.WriteFile(t, filepath.Join(cwd, "one.txt"), "one\n")

	if !w.Ready(tasks[1].Dependencies, done()) || w.Ready(tasks[1].Dependencies, done("t1")) {
		t.Error("t2 may start before t1's changes are merged")
	}
	if w.Settled(tasks, done("t1")) || w.Next(tasks, done("t1")) != "t1" {
		t.Fatalf("settled %v, next %q with t1 completed", w.Settled(tasks, done("t1")), w.Next(tasks, done("t1")))
	}
	m := w.Merge(ctx, "t1", "One", "wrote one.txt")
	if m.Kind != Merged || !strings.Contains(m.Text, "merged into baton/orch_t1: 1 file, +1") {
		t.Fatalf("merge = %+v", m)
	}
	if !w.Ready(tasks[1].Dependencies, done("t1")) || !w.Settled(tasks, done("t1")) || w.Next(tasks, done("t1")) != "" {
		t.Error("t1 merged: t2 may start and nothing is left to merge")
	}
	if _, err := os.Stat(filepath.Join(w.RunCwd(), "one.txt")); err != nil {
		t.Errorf("the run's worktree lacks t1's file: %v", err)
	}

	note = w.Finish(ctx)
	if !w.Cleaned || !strings.Contains(note, "The changes are on the branch baton/orch_t1") {
		t.Fatalf("finish: %q, cleaned %v", note, w.Cleaned)
	}
	if w.Finish(ctx) != "" {
		t.Error("a second finish said something")
	}
	// Stored and read back, the state ends the branch: discarded.
	b, err := json.Marshal(w.State)
	if err != nil {
		t.Fatal(err)
	}
	var st State
	if err := json.Unmarshal(b, &st); err != nil {
		t.Fatal(err)
	}
	if err := st.End(ctx, "discarded", func(wr *worktree.Run) error { return wr.Discard(ctx) }); err != nil || st.Outcome != "discarded" {
		t.Fatalf("end: %v, outcome %q", err, st.Outcome)
	}
	if out := testsupport.Git(t, repo, "branch", "--list", "baton/*"); strings.TrimSpace(out) != "" {
		t.Errorf("branches left: %s", out)
	}
}

// Two tasks that change the same line: the second merge conflicts; the
// merge task works in the run's worktree, its markers keep the merge open,
// and once the files are resolved the merge is recorded. A conflict left to
// the user can also be dropped.
func TestWorkspaceConflict(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	repo := project(t, map[string]string{"x.txt": "base\n"})
	w := New(nil, repo, filepath.Join(t.TempDir(), "data"), "orch_t2", quiet)
	if _, err := w.Open(ctx); err != nil {
		t.Fatal(err)
	}
	tasks := []store.Task{{ID: "a", Title: "A"}, {ID: "b", Title: "B", Complexity: "high"}}
	for _, id := range []string{"a", "b", "c"} {
		cwd, err := w.TaskCwd(ctx, id, false)
		if err != nil {
			t.Fatal(err)
		}
		testsupport.WriteFile(t, filepath.Join(cwd, "x.txt"), id+"\n")
	}
	if m := w.Merge(ctx, "a", "A", "wrote a"); m.Kind != Merged {
		t.Fatalf("merge a = %+v", m)
	}
	if m := w.Merge(ctx, "b", "B", "wrote b"); m.Kind != Conflicted || w.Conflict == nil || w.Conflict.Task != "b" {
		t.Fatalf("merge b = %+v, conflict %+v", m, w.Conflict)
	}
	if w.Settled(tasks, done("a", "b")) {
		t.Error("settled with a conflict")
	}
	workers := map[string]store.Worker{"a": {Summary: "a's report"}, "b": {Summary: "b's report", Output: "b's output"}}
	mt := w.MergeTask("orch_t2", append(tasks, store.Task{ID: "merge-b"}), workers)
	if mt.ID != "merge-b-2" || mt.Priority != 10 || mt.Complexity != "high" || mt.Position != 3 || strings.Join(mt.Scope, ",") != "x.txt" {
		t.Errorf("merge task = %+v", mt)
	}
	for _, want := range []string{"Git stopped merging task b into the run branch baton/orch_t2", "Report of b (B): b's report", "b's output", "Report of a (A): a's report"} {
		if !strings.Contains(mt.Description, want) {
			t.Errorf("merge task lacks %q:\n%s", want, mt.Description)
		}
	}
	if msg := w.Resolving(mt.ID); !strings.Contains(msg, "the merge task merge-b-2 resolves it") {
		t.Errorf("resolving: %q", msg)
	}
	if cwd, err := w.TaskCwd(ctx, mt.ID, false); err != nil || cwd != w.RunCwd() || !w.Merged(mt.ID) {
		t.Fatalf("the merge task works in %q (%v), want the run's worktree %q", cwd, err, w.RunCwd())
	}
	var ue *worktree.UnresolvedError
	if err := w.FinishConflict(ctx); !errors.As(err, &ue) {
		t.Fatalf("finish with markers = %v", err)
	}
	testsupport.WriteFile(t, filepath.Join(w.RunCwd(), "x.txt"), "a and b\n")
	if err := w.FinishConflict(ctx); err != nil {
		t.Fatal(err)
	}
	task, text, err := w.Resolved(ctx, "resolved by "+mt.ID)
	if err != nil || task != "b" || !strings.Contains(text, "(resolved by merge-b-2)") || w.Conflict != nil || !w.Merged("b") {
		t.Fatalf("resolved = %q %q %v; conflict %+v", task, text, err, w.Conflict)
	}

	// A third task conflicts too; the user leaves its changes out.
	if m := w.Merge(ctx, "c", "C", ""); m.Kind != Conflicted {
		t.Fatalf("merge c = %+v", m)
	}
	if msg := w.LeaveToUser("its merge task is gone"); !strings.Contains(msg, "needs you (its merge task is gone)") || w.Conflict.Resolver != ResolverUser {
		t.Errorf("left to the user: %q", msg)
	}
	task, text, err = w.DropConflict(ctx)
	if err != nil || task != "c" || !strings.Contains(text, "the changes of c were left out of baton/orch_t2") || !w.Tasks["c"].Dropped {
		t.Fatalf("dropped = %q %q %v", task, text, err)
	}
	if got, _ := os.ReadFile(filepath.Join(w.RunCwd(), "x.txt")); string(got) != "a and b\n" {
		t.Errorf("the run's worktree after the drop: %q", got)
	}
}

// A commit that git refuses drops the task's changes with the reason; the
// run goes on without them.
func TestWorkspaceMergeFailureDrops(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	repo := project(t, map[string]string{"x.txt": "x\n"})
	w := New(nil, repo, filepath.Join(t.TempDir(), "data"), "orch_t3", quiet)
	if _, err := w.Open(ctx); err != nil {
		t.Fatal(err)
	}
	// A task that never had a worktree cannot be committed.
	m := w.Merge(ctx, "ghost", "Ghost", "")
	if m.Kind != Dropped || !strings.Contains(m.Text, "commit the changes of ghost") || !w.Tasks["ghost"].Dropped || !w.Merged("ghost") {
		t.Fatalf("merge of a task without worktree = %+v", m)
	}
}
