//go:build linux

package machines_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/baton-app/baton/backend/machines/sshtest"
	"github.com/baton-app/baton/backend/testsupport"
	"github.com/baton-app/baton/backend/worktree"
)

// localRepo makes a git repository with one commit of files.
func localRepo(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	testsupport.WriteTree(t, dir, files)
	git(t, dir, "init", "-q", "-b", "main")
	git(t, dir, "add", "-A")
	git(t, dir, "-c", "user.name=Ana", "-c", "user.email=ana@example.com", "commit", "-q", "-m", "first")
	return dir
}

func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v: %s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// onMachine runs a shell command on the other machine as its user.
func onMachine(t *testing.T, s *sshtest.Server, command string) string {
	t.Helper()
	out, err := s.Run(timeout(t, time.Minute), command)
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(out)
}

// The run's commit goes out to a copy in the workspace, a task gets its
// worktree there, the work done there comes back as the task's branch and
// merges locally as a local task's does; then everything of the run goes
// away there, and nothing was written outside the workspace.
func TestGitRoundTrip(t *testing.T) {
	s := sshtest.Start(t, sshtest.Options{})
	homeBefore := homeEntries(t, s)
	ctx := timeout(t, 2*time.Minute)
	local := localRepo(t, map[string]string{"README.md": "# shop\n", "docs/guide.md": "A guide.\n"})
	run, err := worktree.Start(ctx, local, t.TempDir(), "run1")
	if err != nil {
		t.Fatal(err)
	}
	m := open(t, s, s.Target("other"))
	repo, err := m.Repo(ctx, filepath.Join(local, "docs"))
	if err != nil {
		t.Fatal(err)
	}
	if repo.Local != run.Repo || !strings.HasPrefix(repo.Bare, s.Workspace+"/repos/") || !strings.HasPrefix(repo.Worktrees, s.Workspace+"/worktrees/") {
		t.Fatalf("repo = %+v", repo)
	}
	task, err := repo.StartTask(ctx, "run1", "task_001", run.Branch)
	if err != nil {
		t.Fatal(err)
	}
	if task.Base != run.Base || task.Branch != worktree.TaskBranch("run1", "task_001") || task.Dir != repo.TaskDir("run1", "task_001") {
		t.Fatalf("task = %+v (run base %s)", task, run.Base)
	}
	if got := onMachine(t, s, "cat "+task.Dir+"/docs/guide.md && git -C "+task.Dir+" rev-parse HEAD"); got != "A guide.\n"+run.Base {
		t.Fatalf("the task's worktree there: %q", got)
	}

	// The worker's changes there, one of them in Baton's own folder.
	onMachine(t, s, "cd "+task.Dir+" && printf 'Remote notes.\\n' > docs/notes.md && printf 'A better guide.\\n' > docs/guide.md && mkdir -p .claude-orchestrator && echo x > .claude-orchestrator/mail")
	// Started again (a resumed worker), the worktree is kept as it is.
	again, err := repo.StartTask(ctx, "run1", "task_001", run.Branch)
	if err != nil || again != task {
		t.Fatalf("StartTask again = %+v, %v", again, err)
	}
	if got := onMachine(t, s, "cat "+task.Dir+"/docs/notes.md"); got != "Remote notes." {
		t.Fatalf("the resumed worktree lost its work: %q", got)
	}
	committed, err := repo.Commit(ctx, "run1", "task_001", "")
	if err != nil || !committed {
		t.Fatalf("Commit = %v, %v", committed, err)
	}
	if committed, err := repo.Commit(ctx, "run1", "task_001", ""); err != nil || committed {
		t.Fatalf("Commit with nothing new = %v, %v", committed, err)
	}
	tip, err := repo.Fetch(ctx, "run1", "task_001")
	if err != nil {
		t.Fatal(err)
	}
	if got := git(t, local, "rev-parse", "refs/heads/"+task.Branch); got != tip {
		t.Fatalf("the local task branch is %s, Fetch said %s", got, tip)
	}
	if files := strings.Fields(git(t, local, "diff", "--name-only", run.Base, tip)); !slices.Equal(files, []string{"docs/guide.md", "docs/notes.md"}) {
		t.Fatalf("the fetched branch changes %v", files)
	}
	if author := git(t, local, "log", "-1", "--format=%an <%ae>", tip); author != worktree.AuthorName+" <"+worktree.AuthorEmail+">" {
		t.Errorf("the commit made there is by %s", author)
	}
	merged, err := run.Merge(ctx, "task_001", "")
	if err != nil || merged.Commit == "" || len(merged.Changes) != 2 {
		t.Fatalf("merging the fetched branch locally: %+v, %v", merged, err)
	}
	if b, _ := os.ReadFile(filepath.Join(run.RunDir(), "docs", "notes.md")); string(b) != "Remote notes.\n" {
		t.Fatalf("the run's worktree after the merge: %q", b)
	}

	// A second task starts from the run branch as it is now, merged work
	// included.
	next, err := repo.StartTask(ctx, "run1", "task_002", run.Branch)
	if err != nil {
		t.Fatal(err)
	}
	if head, _ := run.Head(ctx); next.Base != head {
		t.Fatalf("task_002 starts from %s, the run branch is at %s", next.Base, head)
	}
	if got := onMachine(t, s, "cat "+next.Dir+"/docs/notes.md"); got != "Remote notes." {
		t.Fatalf("task_002 does not see the merged work: %q", got)
	}

	if err := repo.RemoveTask(ctx, "run1", "task_001"); err != nil {
		t.Fatal(err)
	}
	if got := onMachine(t, s, "test -e "+task.Dir+" && echo there; git -C "+repo.Bare+" branch --list 'baton/*'"); strings.Contains(got, "there") || strings.Contains(got, "task_001") {
		t.Fatalf("after RemoveTask: %q", got)
	}
	if err := repo.Cleanup(ctx, "run1"); err != nil {
		t.Fatal(err)
	}
	if got := onMachine(t, s, "git -C "+repo.Bare+" branch --list; ls "+repo.Worktrees); got != "" {
		t.Fatalf("after Cleanup the machine still has %q", got)
	}
	entries, _ := os.ReadDir(s.Root)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if !slices.Equal(names, []string{"authorized_keys", "home", "workspace"}) {
		t.Errorf("Baton wrote outside the workspace: %v", names)
	}
	if home := homeEntries(t, s); !slices.Equal(home, homeBefore) {
		t.Errorf("Baton wrote into the home folder there: %v, was %v", home, homeBefore)
	}
}

// homeEntries lists the user's home folder on the other machine, without
// the folders of the tests' servers.
func homeEntries(t *testing.T, s *sshtest.Server) []string {
	t.Helper()
	entries, err := os.ReadDir(s.Home)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), "fixture-") {
			out = append(out, e.Name())
		}
	}
	return out
}
