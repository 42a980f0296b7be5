package worktree

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/baton-app/baton/backend/testsupport"
)

// repo makes a git repository with one commit holding files.
func repo(t *testing.T, files map[string]string) string {
	t.Helper()
	return testsupport.GitRepo(t, filepath.Join(t.TempDir(), "repo"), files)
}

func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	out, err := runGit(context.Background(), dir, args...)
	if err != nil {
		t.Fatalf("git %v: %v", args, err)
	}
	return out
}

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func start(t *testing.T, dir string) *Run {
	t.Helper()
	r, err := Start(context.Background(), dir, filepath.Join(t.TempDir(), "data"), "run1")
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// batonWorktrees lists the worktrees of repo that are not the repo itself.
func batonWorktrees(t *testing.T, repo string) []string {
	t.Helper()
	wts, err := List(context.Background(), repo)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, w := range wts {
		if !samePath(w.Path, repo) {
			out = append(out, w.Path)
		}
	}
	return out
}

func branches(t *testing.T, repo string) []string {
	return lines(git(t, repo, "for-each-ref", "--format=%(refname:short)", "refs/heads/"))
}

func TestVersion(t *testing.T) {
	v, err := CheckVersion(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !AtLeast(v, MinVersion) {
		t.Fatalf("version %s below %s", v, MinVersion)
	}
	for _, c := range []struct {
		v, min string
		ok     bool
	}{{"2.25", "2.25", true}, {"2.24.9", "2.25", false}, {"2.39.5", "2.25", true}, {"3.0", "2.25", true}, {"1.9", "2.25", false}, {"2.3", "2.25", false}} {
		if got := AtLeast(c.v, c.min); got != c.ok {
			t.Errorf("AtLeast(%s, %s) = %v", c.v, c.min, got)
		}
	}
}

func TestNotARepository(t *testing.T) {
	dir := t.TempDir()
	_, err := Start(context.Background(), dir, filepath.Join(t.TempDir(), "data"), "run1")
	var nr *NotRepoError
	if !errors.As(err, &nr) || nr.NoCommit || !errors.Is(err, ErrNotRepo) {
		t.Fatalf("err = %v, want a NotRepoError", err)
	}
	for _, want := range []string{"not a git repository", "git init", "shared isolation"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q does not say %q", err, want)
		}
	}
	git(t, dir, "init", "-q")
	_, err = Start(context.Background(), dir, filepath.Join(t.TempDir(), "data"), "run1")
	if !errors.As(err, &nr) || !nr.NoCommit || !strings.Contains(err.Error(), "first commit") {
		t.Fatalf("err = %v, want a NotRepoError without commit", err)
	}
}

func TestStartLeavesDirtyTreeAlone(t *testing.T) {
	dir := repo(t, map[string]string{"a.txt": "one\n", "b.txt": "b\n"})
	testsupport.WriteFile(t, filepath.Join(dir, "a.txt"), "one\nmine\n")
	testsupport.WriteFile(t, filepath.Join(dir, "new.txt"), "untracked\n")
	r := start(t, dir)
	if !reflect.DeepEqual(r.Dirty, []string{"a.txt", "new.txt"}) {
		t.Fatalf("dirty = %v", r.Dirty)
	}
	if got := read(t, filepath.Join(r.RunDir(), "a.txt")); got != "one\n" {
		t.Fatalf("the run's worktree has %q, want HEAD's content", got)
	}
	if _, err := os.Stat(filepath.Join(r.RunDir(), "new.txt")); !os.IsNotExist(err) {
		t.Fatalf("the user's untracked file reached the run: %v", err)
	}
	if got := read(t, filepath.Join(dir, "a.txt")); got != "one\nmine\n" {
		t.Fatalf("the user's change was touched: %q", got)
	}
	if got := strings.TrimSpace(git(t, dir, "symbolic-ref", "--short", "HEAD")); got != "main" {
		t.Fatalf("user's branch = %s", got)
	}
	if inside(r.Dir, dir) {
		t.Fatalf("worktrees inside the repository: %s", r.Dir)
	}
}

func TestTaskCommitMergeAndChanges(t *testing.T) {
	ctx := context.Background()
	dir := repo(t, map[string]string{"a.txt": "1\n2\n3\n4\n5\n6\n7\n8\n9\n"})
	r := start(t, dir)
	t1, err := r.StartTask(ctx, "task_001")
	if err != nil {
		t.Fatal(err)
	}
	t2, err := r.StartTask(ctx, "task_002")
	if err != nil {
		t.Fatal(err)
	}
	if t1.Branch != "baton/run1-tasks/task_001" || t1.Base != r.Base {
		t.Fatalf("task = %+v", t1)
	}
	// Two workers edit the same file at once, in different places.
	testsupport.WriteFile(t, filepath.Join(t1.Dir, "a.txt"), "1 first\n2\n3\n4\n5\n6\n7\n8\n9\n")
	testsupport.WriteFile(t, filepath.Join(t1.Dir, "new1.txt"), "x\ny\n")
	testsupport.WriteFile(t, filepath.Join(t2.Dir, "a.txt"), "1\n2\n3\n4\n5\n6\n7\n8\n9 second\n")
	// Baton's own folder (a link to the run's mailbox) is never committed.
	if err := os.Symlink(t.TempDir(), filepath.Join(t1.Dir, BatonDir)); err != nil {
		t.Fatal(err)
	}
	testsupport.WriteFile(t, filepath.Join(t1.Dir, "sub", BatonDir, "x.json"), "{}")
	// The second worker commits itself.
	git(t, t2.Dir, "-c", "user.name=W", "-c", "user.email=w@x", "commit", "-qam", "worker's own commit")
	if ok, err := r.Commit(ctx, "task_001", "task_001: edits"); err != nil || !ok {
		t.Fatalf("commit = %v, %v", ok, err)
	}
	if ok, err := r.Commit(ctx, "task_002", ""); err != nil || ok {
		t.Fatalf("commit of a committed tree = %v, %v", ok, err)
	}
	author := strings.TrimSpace(git(t, dir, "log", "-1", "--format=%an <%ae>", t1.Branch))
	if author != "Baton <baton@localhost>" {
		t.Fatalf("author = %q", author)
	}
	m1, err := r.Merge(ctx, "task_001", "")
	if err != nil {
		t.Fatal(err)
	}
	want := []FileChange{{Path: "a.txt", Added: 1, Removed: 1}, {Path: "new1.txt", Added: 2, Removed: 0}} // no BatonDir
	if !reflect.DeepEqual(m1.Changes, want) {
		t.Fatalf("changes = %+v", m1.Changes)
	}
	m2, err := r.Merge(ctx, "task_002", "")
	if err != nil {
		t.Fatal(err)
	}
	if len(m2.Changes) != 1 || m2.Changes[0].Path != "a.txt" {
		t.Fatalf("changes = %+v", m2.Changes)
	}
	got := git(t, dir, "show", r.Branch+":a.txt")
	if got != "1 first\n2\n3\n4\n5\n6\n7\n8\n9 second\n" {
		t.Fatalf("merged a.txt = %q: a line was lost", got)
	}
	// Both merges are --no-ff merge commits.
	parents := strings.Fields(git(t, dir, "log", "-1", "--format=%P", r.Branch))
	if len(parents) != 2 {
		t.Fatalf("run branch tip has parents %v, want a merge commit", parents)
	}
	patch, err := r.Patch(ctx, m1.Base, m1.Tip)
	if err != nil || !strings.Contains(patch, "+1 first") || !strings.Contains(patch, "+++ b/new1.txt") {
		t.Fatalf("patch = %q, %v", patch, err)
	}
	// The user's branch is untouched until Apply.
	if got := read(t, filepath.Join(dir, "a.txt")); got != "1\n2\n3\n4\n5\n6\n7\n8\n9\n" {
		t.Fatalf("user's file changed before Apply: %q", got)
	}
	// A dependant task starts from the run branch after the merges.
	t3, err := r.StartTask(ctx, "task_003")
	if err != nil {
		t.Fatal(err)
	}
	if got := read(t, filepath.Join(t3.Dir, "new1.txt")); got != "x\ny\n" {
		t.Fatalf("a dependant does not see its dependency's file: %q", got)
	}
	if got := read(t, filepath.Join(t3.Dir, "a.txt")); !strings.Contains(got, "9 second") {
		t.Fatalf("a dependant does not see its dependency's edit: %q", got)
	}
	if t3.Base != m2.Commit {
		t.Fatalf("dependant base %s, want %s", t3.Base, m2.Commit)
	}
	// A task that changed nothing merges as nothing.
	m3, err := r.Merge(ctx, "task_003", "")
	if err != nil || m3.Commit != "" || len(m3.Changes) != 0 {
		t.Fatalf("empty merge = %+v, %v", m3, err)
	}
}

func TestConflictResolvedInRunWorktree(t *testing.T) {
	ctx := context.Background()
	dir := repo(t, map[string]string{"a.txt": "hello\n"})
	r := start(t, dir)
	t1, _ := r.StartTask(ctx, "t1")
	t2, _ := r.StartTask(ctx, "t2")
	testsupport.WriteFile(t, filepath.Join(t1.Dir, "a.txt"), "hello from one\n")
	testsupport.WriteFile(t, filepath.Join(t2.Dir, "a.txt"), "hello from two\n")
	for _, id := range []string{"t1", "t2"} {
		if _, err := r.Commit(ctx, id, ""); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := r.Merge(ctx, "t1", ""); err != nil {
		t.Fatal(err)
	}
	_, err := r.Merge(ctx, "t2", "")
	var ce *ConflictError
	if !errors.As(err, &ce) || !reflect.DeepEqual(ce.Files, []string{"a.txt"}) || ce.Task != "t2" {
		t.Fatalf("err = %v, want a conflict in a.txt", err)
	}
	if !r.Merging(ctx) {
		t.Fatal("the merge is not left in progress")
	}
	if _, err := r.Merge(ctx, "t1", ""); !errors.Is(err, ErrMergeInProgress) {
		t.Fatalf("a second merge during a conflict: %v", err)
	}
	var ue *UnresolvedError
	if err := r.FinishMerge(ctx, ce.Files); !errors.As(err, &ue) {
		t.Fatalf("finish with markers = %v", err)
	}
	testsupport.WriteFile(t, filepath.Join(r.RunDir(), "a.txt"), "hello from one\nhello from two\n")
	if err := r.FinishMerge(ctx, ce.Files); err != nil {
		t.Fatal(err)
	}
	if r.Merging(ctx) {
		t.Fatal("still merging")
	}
	if got := git(t, dir, "show", r.Branch+":a.txt"); got != "hello from one\nhello from two\n" {
		t.Fatalf("resolved a.txt = %q", got)
	}
	parents := strings.Fields(git(t, dir, "log", "-1", "--format=%P", r.Branch))
	if len(parents) != 2 {
		t.Fatalf("resolution is not a merge commit: %v", parents)
	}
}

func TestAbortMerge(t *testing.T) {
	ctx := context.Background()
	dir := repo(t, map[string]string{"a.txt": "hello\n"})
	r := start(t, dir)
	t1, _ := r.StartTask(ctx, "t1")
	t2, _ := r.StartTask(ctx, "t2")
	testsupport.WriteFile(t, filepath.Join(t1.Dir, "a.txt"), "one\n")
	testsupport.WriteFile(t, filepath.Join(t2.Dir, "a.txt"), "two\n")
	r.Commit(ctx, "t1", "")
	r.Commit(ctx, "t2", "")
	r.Merge(ctx, "t1", "")
	if _, err := r.Merge(ctx, "t2", ""); err == nil {
		t.Fatal("no conflict")
	}
	if err := r.AbortMerge(ctx); err != nil {
		t.Fatal(err)
	}
	if r.Merging(ctx) || git(t, dir, "show", r.Branch+":a.txt") != "one\n" {
		t.Fatal("abort did not restore the run branch")
	}
}

func TestApplyFastForwardAndCleanup(t *testing.T) {
	ctx := context.Background()
	dir := repo(t, map[string]string{"a.txt": "a\n", "b.txt": "b\n"})
	r := start(t, dir)
	t1, _ := r.StartTask(ctx, "t1")
	testsupport.WriteFile(t, filepath.Join(t1.Dir, "a.txt"), "a changed\n")
	r.Commit(ctx, "t1", "")
	if _, err := r.Merge(ctx, "t1", ""); err != nil {
		t.Fatal(err)
	}
	if err := r.Cleanup(ctx); err != nil {
		t.Fatal(err)
	}
	if wts := batonWorktrees(t, dir); len(wts) != 0 {
		t.Fatalf("worktrees left after cleanup: %v", wts)
	}
	if _, err := os.Stat(r.Dir); !os.IsNotExist(err) {
		t.Fatalf("run folder left: %v", err)
	}
	if got := branches(t, dir); !reflect.DeepEqual(got, []string{"baton/run1", "main"}) {
		t.Fatalf("branches after cleanup = %v", got)
	}
	// A dirty file the run did not change does not stop Apply.
	testsupport.WriteFile(t, filepath.Join(dir, "b.txt"), "b mine\n")
	a, err := r.Apply(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !a.FastForward || a.Into != "main" {
		t.Fatalf("applied = %+v", a)
	}
	if read(t, filepath.Join(dir, "a.txt")) != "a changed\n" || read(t, filepath.Join(dir, "b.txt")) != "b mine\n" {
		t.Fatal("apply did not bring the change or lost the user's")
	}
	if err := r.Discard(ctx); err != nil {
		t.Fatal(err)
	}
	if got := branches(t, dir); !reflect.DeepEqual(got, []string{"main"}) {
		t.Fatalf("branches after discard = %v", got)
	}
	if read(t, filepath.Join(dir, "a.txt")) != "a changed\n" {
		t.Fatal("discard after apply undid the applied change")
	}
}

func TestApplyRefusedOnConflictingDirtyTree(t *testing.T) {
	ctx := context.Background()
	dir := repo(t, map[string]string{"a.txt": "a\n"})
	r := start(t, dir)
	t1, _ := r.StartTask(ctx, "t1")
	testsupport.WriteFile(t, filepath.Join(t1.Dir, "a.txt"), "a by the run\n")
	r.Commit(ctx, "t1", "")
	r.Merge(ctx, "t1", "")
	testsupport.WriteFile(t, filepath.Join(dir, "a.txt"), "a by the user\n")
	head := git(t, dir, "rev-parse", "HEAD")
	_, err := r.Apply(ctx)
	var de *DirtyOverlapError
	if !errors.As(err, &de) || !reflect.DeepEqual(de.Files, []string{"a.txt"}) {
		t.Fatalf("err = %v, want a refusal naming a.txt", err)
	}
	if !strings.Contains(err.Error(), "refused") || !strings.Contains(err.Error(), "commit or stash") {
		t.Fatalf("refusal sentence = %q", err)
	}
	if read(t, filepath.Join(dir, "a.txt")) != "a by the user\n" || git(t, dir, "rev-parse", "HEAD") != head {
		t.Fatal("a refused Apply changed the user's tree or branch")
	}
}

func TestApplyMergeCommitAndConflictUndone(t *testing.T) {
	ctx := context.Background()
	dir := repo(t, map[string]string{"a.txt": "a\n", "b.txt": "b\n"})
	r := start(t, dir)
	t1, _ := r.StartTask(ctx, "t1")
	testsupport.WriteFile(t, filepath.Join(t1.Dir, "a.txt"), "a by the run\n")
	r.Commit(ctx, "t1", "")
	r.Merge(ctx, "t1", "")
	// The user commits elsewhere meanwhile: Apply makes a merge commit.
	testsupport.WriteFile(t, filepath.Join(dir, "b.txt"), "b by the user\n")
	git(t, dir, "-c", "user.name=U", "-c", "user.email=u@x", "commit", "-qam", "user")
	a, err := r.Apply(ctx)
	if err != nil || a.FastForward {
		t.Fatalf("apply = %+v, %v", a, err)
	}
	if read(t, filepath.Join(dir, "a.txt")) != "a by the run\n" || read(t, filepath.Join(dir, "b.txt")) != "b by the user\n" {
		t.Fatal("merge lost a side")
	}
	if a2, err := r.Apply(ctx); err != nil || !a2.Nothing {
		t.Fatalf("second apply = %+v, %v", a2, err)
	}

	// A conflicting commit on the user's branch: the merge is undone.
	dir2 := repo(t, map[string]string{"a.txt": "a\n"})
	r2, err := Start(ctx, dir2, filepath.Join(t.TempDir(), "data"), "run2")
	if err != nil {
		t.Fatal(err)
	}
	t2, _ := r2.StartTask(ctx, "t1")
	testsupport.WriteFile(t, filepath.Join(t2.Dir, "a.txt"), "a by the run\n")
	r2.Commit(ctx, "t1", "")
	r2.Merge(ctx, "t1", "")
	testsupport.WriteFile(t, filepath.Join(dir2, "a.txt"), "a by the user\n")
	git(t, dir2, "-c", "user.name=U", "-c", "user.email=u@x", "commit", "-qam", "user")
	head := git(t, dir2, "rev-parse", "HEAD")
	_, err = r2.Apply(ctx)
	var ae *ApplyConflictError
	if !errors.As(err, &ae) || !reflect.DeepEqual(ae.Files, []string{"a.txt"}) {
		t.Fatalf("err = %v", err)
	}
	if git(t, dir2, "rev-parse", "HEAD") != head || read(t, filepath.Join(dir2, "a.txt")) != "a by the user\n" {
		t.Fatal("a conflicting Apply was not undone")
	}
	if dirty, _ := DirtyFiles(ctx, dir2); len(dirty) != 0 {
		t.Fatalf("tree left dirty: %v", dirty)
	}
}

func TestResumeAfterCrash(t *testing.T) {
	ctx := context.Background()
	dir := repo(t, map[string]string{"a.txt": "a\n"})
	root := filepath.Join(t.TempDir(), "data")
	r, err := Start(ctx, dir, root, "run1")
	if err != nil {
		t.Fatal(err)
	}
	t1, _ := r.StartTask(ctx, "t1")
	testsupport.WriteFile(t, filepath.Join(t1.Dir, "a.txt"), "half done\n")
	// The process dies; the stored run comes back. The task's worktree is
	// kept with its work; a deleted run worktree is made again.
	if err := os.RemoveAll(r.RunDir()); err != nil {
		t.Fatal(err)
	}
	r2, err := Open(ctx, *r)
	if err != nil {
		t.Fatal(err)
	}
	if err := r2.Resume(ctx); err != nil {
		t.Fatal(err)
	}
	t1b, err := r2.StartTask(ctx, "t1")
	if err != nil {
		t.Fatal(err)
	}
	if t1b.Base != t1.Base || read(t, filepath.Join(t1b.Dir, "a.txt")) != "half done\n" {
		t.Fatalf("resumed task lost its work: %+v", t1b)
	}
	if _, err := r2.Commit(ctx, "t1", ""); err != nil {
		t.Fatal(err)
	}
	if _, err := r2.Merge(ctx, "t1", ""); err != nil {
		t.Fatal(err)
	}
	// Start with the same id is a resume too.
	r3, err := Start(ctx, dir, root, "run1")
	if err != nil || r3.Base != r.Base {
		t.Fatalf("restart = %+v, %v", r3, err)
	}
	if err := r3.Discard(ctx); err != nil {
		t.Fatal(err)
	}
	if wts := batonWorktrees(t, dir); len(wts) != 0 {
		t.Fatalf("worktrees left: %v", wts)
	}
	if got := branches(t, dir); !reflect.DeepEqual(got, []string{"main"}) {
		t.Fatalf("branches = %v", got)
	}
}

func TestInvalidNames(t *testing.T) {
	dir := repo(t, map[string]string{"a.txt": "a\n"})
	if _, err := Start(context.Background(), dir, t.TempDir(), "../x"); !errors.Is(err, ErrInvalidName) {
		t.Fatalf("err = %v", err)
	}
	r := start(t, dir)
	for _, id := range []string{"", "..", "a/b", "-x", "a b"} {
		if _, err := r.StartTask(context.Background(), id); !errors.Is(err, ErrInvalidName) {
			t.Errorf("task %q: err = %v", id, err)
		}
	}
}

func TestParseNumstat(t *testing.T) {
	got := parseNumstat("3\t1\ta.go\x00-\t-\timg.png\x00")
	want := []FileChange{{"a.go", 3, 1}, {"img.png", -1, -1}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v", got)
	}
}

// What a worker changed in its worktree since its base: committed and
// uncommitted changes, removals and new files, relative to the folder
// asked from; a check-out of a commit comes and goes; Present tells which
// files a commit holds.
func TestChangedSinceCheckOutAndPresent(t *testing.T) {
	t.Parallel()
	dir := repo(t, map[string]string{"app/a.txt": "a\n", "app/gone.txt": "g\n", "README.md": "# r\n"})
	r := start(t, dir)
	ctx := context.Background()
	wt, err := r.StartTask(ctx, "t1")
	if err != nil {
		t.Fatal(err)
	}
	testsupport.WriteFile(t, filepath.Join(wt.Dir, "app/a.txt"), "a2\n")
	git(t, wt.Dir, "-c", "user.name=T", "-c", "user.email=t@x", "commit", "-qam", "edit")
	testsupport.WriteFile(t, filepath.Join(wt.Dir, "app/new.txt"), "n\n")
	if err := os.Remove(filepath.Join(wt.Dir, "app/gone.txt")); err != nil {
		t.Fatal(err)
	}
	testsupport.WriteFile(t, filepath.Join(wt.Dir, "README.md"), "# changed\n")
	got, err := ChangedSince(ctx, filepath.Join(wt.Dir, "app"), wt.Base)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"a.txt", "gone.txt", "new.txt"}; !reflect.DeepEqual(got, want) {
		t.Errorf("changed under app/ = %v, want %v", got, want)
	}
	co, err := r.CheckOut(ctx, r.Base)
	if err != nil {
		t.Fatal(err)
	}
	if read(t, filepath.Join(co, "app/a.txt")) != "a\n" {
		t.Error("the check-out is not of the base")
	}
	if err := r.RemoveCheckOut(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(co); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the check-out is still there: %v", err)
	}
	// The result: what the run branch changed since its base.
	if _, err := r.Commit(ctx, "t1", "t1"); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Merge(ctx, "t1", "merge t1"); err != nil {
		t.Fatal(err)
	}
	result, err := r.Result(ctx)
	if err != nil || !result["app/a.txt"] || !result["app/new.txt"] || !result["README.md"] || result["app/gone.txt"] || len(result) != 3 {
		t.Errorf("result = %v, %v", result, err)
	}
	if err := r.Discard(ctx); err != nil {
		t.Fatal(err)
	}
	if result, err := r.Result(ctx); err != nil || len(result) != 0 {
		t.Errorf("the result of a discarded branch = %v, %v", result, err)
	}
}
