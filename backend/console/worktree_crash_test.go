package console

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/baton-app/baton/backend/claudecodetest"
	"github.com/baton-app/baton/backend/testsupport"
)

// taskChangesLine is a task's line in the summary of a worktree run:
// "  task_001: src/a.py +3 -0 src/b.py +1 -1".
var taskChangesLine = regexp.MustCompile(`(?m)^  (task_\d+): (.+)$`)

// TestCrashAndResumeWorktreeOnClaudeCode kills "baton run --host
// claude-code" of a worktree template with SIGKILL once a worker runs in
// its own worktree; "baton run --resume" finishes the run. Throughout, the
// user's branch and working tree (with an uncommitted change and an
// untracked file) stay as they were; at the end the run branch holds every
// task's changes, git knows of no worktree of Baton's, no task branch is
// left and no CLI process lives on.
func TestCrashAndResumeWorktreeOnClaudeCode(t *testing.T) {
	cli := claudecodetest.Binary(t)
	bin := buildBaton(t)
	url := modelSim(t)
	config, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	env := append(claudecodetest.Env(t.TempDir(), url), "BATON_CONFIG_DIR="+config)
	dir, err := filepath.EvalSymlinks(pyRepo(t))
	if err != nil {
		t.Fatal(err)
	}
	// The user's own uncommitted work: a change to a tracked file and a new
	// file, neither of which the run may touch.
	if err := os.WriteFile(filepath.Join(dir, "src/stock.py"), []byte("def count(items):\n    return len(items)  # mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "TODO-mine.txt"), []byte("my own notes, not committed\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	head := strings.TrimSpace(testsupport.Git(t, dir, "rev-parse", "HEAD"))
	status := testsupport.Git(t, dir, "status", "--porcelain", "--untracked-files=all")
	files := testsupport.ReadTree(t, dir)
	wtRoot := filepath.Join(config, "worktrees")
	ours := func(cwd string) bool {
		return cwd == dir || strings.HasPrefix(cwd, dir+string(filepath.Separator)) || strings.HasPrefix(cwd, wtRoot+string(filepath.Separator))
	}

	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	first := exec.CommandContext(ctx, bin, "run", "--host", "claude-code", "--claude", cli, "--template", "test-coverage",
		"--cwd", dir, "--message", "Add tests to this project", "--yes")
	first.Env = env
	runID, killed := killAtFirstWorker(t, first)
	if runID == "" || !killed {
		t.Fatalf("the run did not reach the worker phase (run %q)", runID)
	}
	runBranch := "baton/" + runID

	// Killed in the worker phase: the run's worktree and a task's are there.
	wts := worktreePaths(t, dir)
	runDir := filepath.Join(wtRoot, runID, "run")
	if !slices.Contains(wts, runDir) || !slices.ContainsFunc(wts, func(p string) bool {
		return strings.HasPrefix(p, filepath.Join(wtRoot, runID, "tasks")+string(filepath.Separator))
	}) {
		t.Fatalf("after the kill git does not list the run's worktree %s and a task's:\n%s", runDir, strings.Join(wts, "\n"))
	}
	deadline := time.Now().Add(5 * time.Second)
	for len(cliProcesses(cli, ours)) > 0 && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if left := cliProcesses(cli, ours); len(left) > 0 {
		t.Fatalf("CLI processes outlived the killed baton: %v", left)
	}

	resume := exec.CommandContext(ctx, bin, "run", "--resume", runID, "--host", "claude-code", "--claude", cli, "--yes")
	resume.Env = env
	out, err := resume.CombinedOutput()
	res := string(out)
	code := 0
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		code = exit.ExitCode()
	} else if err != nil {
		t.Fatalf("resume %s: %v\n%s", runID, err, res)
	}
	if code != ExitOK || !strings.Contains(res, "completed: ") {
		t.Fatalf("resume %s: exit %d, want %d\n%s", runID, code, ExitOK, res)
	}
	if !strings.Contains(res, "Branch: "+runBranch+". Merge it with: ") {
		t.Errorf("the resumed run does not name its branch %s:\n%s", runBranch, res)
	}

	t.Logf("resumed run:\n%s", res)
	// The user's branch and working tree are as they were.
	if got := strings.TrimSpace(testsupport.Git(t, dir, "symbolic-ref", "--short", "HEAD")); got != "main" {
		t.Errorf("the user's checkout moved to %q", got)
	}
	if got := strings.TrimSpace(testsupport.Git(t, dir, "rev-parse", "HEAD")); got != head {
		t.Errorf("the user's HEAD moved from %s to %s", head, got)
	}
	if got := testsupport.Git(t, dir, "status", "--porcelain", "--untracked-files=all"); got != status {
		t.Errorf("git status of the user's tree changed:\nbefore:\n%s\nafter:\n%s", status, got)
	}
	after := testsupport.ReadTree(t, dir)
	for p, body := range files {
		if after[p] != body {
			t.Errorf("%s in the user's tree changed: %q, was %q", p, after[p], body)
		}
	}
	for p := range after {
		if _, ok := files[p]; !ok {
			t.Errorf("%s appeared in the user's tree", p)
		}
	}

	// The run branch holds every task's changes.
	tasks := taskChangesLine.FindAllStringSubmatch(res, -1)
	if len(tasks) == 0 {
		t.Fatalf("the resumed run lists no task's changes:\n%s", res)
	}
	onBranch := strings.Fields(testsupport.Git(t, dir, "diff", "--name-only", head, runBranch))
	log := testsupport.Git(t, dir, "log", "--format=%s", head+".."+runBranch)
	var testsSeen []string
	for _, m := range tasks {
		if strings.Contains(m[2], "not merged") {
			t.Errorf("%s was not merged: %s", m[1], m[2])
			continue
		}
		if !strings.Contains(log, "Baton: merge "+m[1]+" ") {
			t.Errorf("%s has no merge commit on %s:\n%s", m[1], runBranch, log)
		}
		// Each worker did its own task, the one it was cut in too: the
		// scripted agent writes the test files of its own packages.
		var changed []string
		f := strings.Fields(m[2])
		for i := 0; i+2 < len(f); i += 3 {
			changed = append(changed, f[i])
			if !slices.Contains(onBranch, f[i]) {
				t.Errorf("%s changed %s, which is not on %s (%v)", m[1], f[i], runBranch, onBranch)
			}
		}
		if len(changed) == 0 || slices.ContainsFunc(changed, func(p string) bool {
			return !strings.HasPrefix(filepath.Base(p), "test_") || slices.Contains(testsSeen, p)
		}) {
			t.Errorf("%s's changes are not test files of its own: %v (those of the other tasks: %v)\n%s", m[1], changed, testsSeen, res)
		}
		testsSeen = append(testsSeen, changed...)
	}

	// Nothing of Baton's is left but the run branch.
	if got := worktreePaths(t, dir); len(got) != 1 || got[0] != dir {
		t.Errorf("worktrees after the run: %v, want only %s", got, dir)
	}
	if got := strings.Fields(testsupport.Git(t, dir, "for-each-ref", "--format=%(refname:short)", "refs/heads/")); !slices.Equal(got, []string{runBranch, "main"}) {
		t.Errorf("branches after the run: %v, want %s and main", got, runBranch)
	}
	if _, err := os.Stat(filepath.Join(wtRoot, runID)); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the run's worktree folder is still there: %v", err)
	}
	if left := cliProcesses(cli, ours); len(left) > 0 {
		t.Errorf("CLI processes left after the resumed run: %v", left)
	}
}

// worktreePaths are the worktrees git lists for the repository at dir, the
// main one first.
func worktreePaths(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	for _, l := range strings.Split(testsupport.Git(t, dir, "worktree", "list", "--porcelain"), "\n") {
		if p, ok := strings.CutPrefix(l, "worktree "); ok {
			out = append(out, p)
		}
	}
	return out
}
