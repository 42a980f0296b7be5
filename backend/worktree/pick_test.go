package worktree

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/baton-app/baton/backend/testsupport"
)

// doTask runs task id of r: files written in its worktree, committed and
// merged into the run branch.
func doTask(t *testing.T, r *Run, id string, files map[string]string) Merged {
	t.Helper()
	ctx := context.Background()
	wt, err := r.StartTask(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	for name, body := range files {
		testsupport.WriteFile(t, filepath.Join(wt.Dir, name), body)
	}
	if _, err := r.Commit(ctx, id, id+": work"); err != nil {
		t.Fatal(err)
	}
	m, err := r.Merge(ctx, id, "")
	if err != nil {
		t.Fatal(err)
	}
	if err := r.RemoveTask(ctx, id); err != nil {
		t.Fatal(err)
	}
	return m
}

func TestApplyTasksTakesOnlyThePickedChangesInMergeOrder(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := repo(t, map[string]string{"a.txt": "1\n2\n3\n", "b.txt": "b\n"})
	r := start(t, dir)
	m1 := doTask(t, r, "t1", map[string]string{"one.txt": "one\n"})
	m2 := doTask(t, r, "t2", map[string]string{"b.txt": "b by t2\n"})
	// t3 builds on t1: it edits the file t1 made.
	m3 := doTask(t, r, "t3", map[string]string{"one.txt": "one\nand t3\n"})
	if err := r.Cleanup(ctx); err != nil {
		t.Fatal(err)
	}

	// Picks given out of order are replayed in the order of their merges.
	order, err := r.Order(ctx, []Pick{{"t3", m3.Commit}, {"t1", m1.Commit}})
	if err != nil || order[0].Task != "t1" || order[1].Task != "t3" {
		t.Fatalf("order = %v, %v", order, err)
	}
	a, err := r.ApplyTasks(ctx, []Pick{{"t3", m3.Commit}, {"t1", m1.Commit}})
	if err != nil {
		t.Fatal(err)
	}
	if a.Into != "main" || !a.FastForward {
		t.Fatalf("applied = %+v", a)
	}
	if got := read(t, filepath.Join(dir, "one.txt")); got != "one\nand t3\n" {
		t.Fatalf("one.txt = %q", got)
	}
	if got := read(t, filepath.Join(dir, "b.txt")); got != "b\n" {
		t.Fatalf("b.txt = %q: t2 was not picked", got)
	}
	// Nothing of the selective apply is left behind; the run branch stays.
	bs := branches(t, dir)
	if slices.Contains(bs, r.ApplyBranch()) || !slices.Contains(bs, r.Branch) {
		t.Fatalf("branches = %v", bs)
	}
	if wts := batonWorktrees(t, dir); len(wts) != 0 {
		t.Fatalf("worktrees left: %v", wts)
	}
	if _, err := os.Stat(r.Dir); !os.IsNotExist(err) {
		t.Fatalf("the run's folder is left: %v", err)
	}
	// The rest can follow: applying t2 now merges it too.
	if _, err := r.ApplyTasks(ctx, []Pick{{"t2", m2.Commit}}); err != nil {
		t.Fatal(err)
	}
	if got := read(t, filepath.Join(dir, "b.txt")); got != "b by t2\n" {
		t.Fatalf("b.txt = %q", got)
	}
	if cmd := r.PickCommand([]Pick{{"t1", m1.Commit}}); !strings.Contains(cmd, "cherry-pick -m 1 "+m1.Commit[:12]) {
		t.Fatalf("command = %q", cmd)
	}
}

func TestApplyTasksRefusesChangesThatNeedWhatWasLeftOut(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := repo(t, map[string]string{"a.txt": "1\n"})
	r := start(t, dir)
	doTask(t, r, "t1", map[string]string{"one.txt": "one\n"})
	m2 := doTask(t, r, "t2", map[string]string{"one.txt": "one changed\n"})
	head := strings.TrimSpace(git(t, dir, "rev-parse", "HEAD"))
	_, err := r.ApplyTasks(ctx, []Pick{{"t2", m2.Commit}})
	var pe *PickConflictError
	if !errors.As(err, &pe) || pe.Task != "t2" || !slices.Equal(pe.Files, []string{"one.txt"}) {
		t.Fatalf("err = %v", err)
	}
	if got := strings.TrimSpace(git(t, dir, "rev-parse", "HEAD")); got != head {
		t.Fatal("the user's branch moved")
	}
	if _, err := os.Stat(filepath.Join(dir, "one.txt")); !os.IsNotExist(err) {
		t.Fatal("a file reached the user's folder")
	}
	if slices.Contains(branches(t, dir), r.ApplyBranch()) {
		t.Fatal("the apply branch is left")
	}
	// A commit that is not one of the run branch's merges is refused.
	if _, err := r.ApplyTasks(ctx, []Pick{{"t9", head}}); err == nil || !strings.Contains(err.Error(), "not on the branch") {
		t.Fatalf("err = %v", err)
	}
}

func TestPushToABareRemote(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := repo(t, map[string]string{"a.txt": "1\n"})
	bare := filepath.Join(t.TempDir(), "remote.git")
	git(t, dir, "init", "-q", "--bare", bare)
	git(t, dir, "remote", "add", "origin", bare)
	r := start(t, dir)
	m := doTask(t, r, "t1", map[string]string{"one.txt": "one\n"})
	rs, err := Remotes(ctx, dir)
	if err != nil || len(rs) != 1 || rs[0].Name != "origin" || rs[0].URL != bare {
		t.Fatalf("remotes = %v, %v", rs, err)
	}
	if _, err := r.Push(ctx, "elsewhere"); !errors.Is(err, ErrUnknownRemote) {
		t.Fatalf("push to an unknown remote = %v", err)
	}
	if _, err := r.Push(ctx, "origin"); err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(git(t, bare, "rev-parse", "refs/heads/"+r.Branch)); got != m.Commit {
		t.Fatalf("remote has %s, want %s", got, m.Commit)
	}
	if !strings.HasSuffix(r.PushCommand("origin"), "push origin "+r.Branch) {
		t.Fatalf("command = %q", r.PushCommand("origin"))
	}
}

func TestFileDiffsCarryBothVersions(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := repo(t, map[string]string{"a.txt": "1\n2\n", "gone.txt": "bye\n", "my file.txt": "x\n"})
	r := start(t, dir)
	wt, err := r.StartTask(ctx, "t1")
	if err != nil {
		t.Fatal(err)
	}
	testsupport.WriteFile(t, filepath.Join(wt.Dir, "a.txt"), "1\n2 changed\n")
	testsupport.WriteFile(t, filepath.Join(wt.Dir, "new.go"), "package x\n")
	testsupport.WriteFile(t, filepath.Join(wt.Dir, "my file.txt"), "y\n")
	testsupport.WriteFile(t, filepath.Join(wt.Dir, "img.bin"), "\x00\x01\x02")
	if err := os.Remove(filepath.Join(wt.Dir, "gone.txt")); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Commit(ctx, "t1", "t1"); err != nil {
		t.Fatal(err)
	}
	m, err := r.Merge(ctx, "t1", "")
	if err != nil {
		t.Fatal(err)
	}
	ds, err := r.FileDiffs(ctx, m.Base, m.Tip)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]FileDiff{}
	for _, d := range ds {
		got[d.Path] = d
	}
	if d := got["a.txt"]; d.Status != "modified" || d.Old != "1\n2\n" || d.New != "1\n2 changed\n" || d.Added != 1 || d.Removed != 1 {
		t.Errorf("a.txt = %+v", d)
	}
	if d := got["new.go"]; d.Status != "added" || d.Old != "" || d.New != "package x\n" {
		t.Errorf("new.go = %+v", d)
	}
	if d := got["gone.txt"]; d.Status != "deleted" || d.Old != "bye\n" || d.New != "" {
		t.Errorf("gone.txt = %+v", d)
	}
	if d := got["my file.txt"]; d.Old != "x\n" || d.New != "y\n" {
		t.Errorf("my file.txt = %+v", d)
	}
	if d := got["img.bin"]; !d.Binary || d.New != "" {
		t.Errorf("img.bin = %+v", d)
	}
	if b, err := r.Show(ctx, m.Tip, "new.go"); err != nil || string(b) != "package x\n" {
		t.Errorf("show = %q, %v", b, err)
	}
	if _, err := r.Show(ctx, m.Tip, "gone.txt"); err == nil {
		t.Error("show of a deleted file worked")
	}
}
