package console

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/baton-app/baton/backend/claudecodetest"
	"github.com/baton-app/baton/backend/testsupport"
)

// pyRepo is pyProject as a git repository on branch main with one commit.
func pyRepo(t *testing.T) string {
	t.Helper()
	dir := pyProject(t)
	testsupport.Git(t, dir, "init", "-q", "-b", "main")
	testsupport.Git(t, dir, "add", "-A")
	testsupport.Git(t, dir, "commit", "-q", "-m", "first")
	return dir
}

var branchLine = regexp.MustCompile(`(?m)^Branch: (baton/orch_[0-9a-f]+)\. Merge it with: git -C \S+ merge baton/orch_[0-9a-f]+$`)

// TestRunWorktreeOnClaudeCode is "baton run --isolation worktree" with the
// real CLI and model-sim on a git repository: the workers write in their
// own worktrees, the user's tree is untouched until the end, the summary
// lists each task's changes and the branch with its merge command, and
// --apply then brings the changes into the user's branch, leaving no
// worktree or branch of Baton's behind.
func TestRunWorktreeOnClaudeCode(t *testing.T) {
	bin := claudecodetest.Binary(t)
	url := modelSim(t)
	t.Setenv("BATON_CONFIG_DIR", t.TempDir())
	t.Setenv("HOME", t.TempDir())
	t.Setenv("ANTHROPIC_BASE_URL", url)
	t.Setenv("ANTHROPIC_API_KEY", claudecodetest.APIKey)
	t.Setenv("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
	dir := pyRepo(t)
	// An uncommitted change of the user's, in a file the run does not write.
	mine := "def count(items):\n    return len(items)  # mine\n"
	if err := os.WriteFile(filepath.Join(dir, "src/stock.py"), []byte(mine), 0o644); err != nil {
		t.Fatal(err)
	}

	// Without --apply: the branch and the command, the user's tree as it was.
	code, stdout, stderr := run(t, "", "--host", "claude-code", "--claude", bin, "--template", "documentation",
		"--message", "Document this project", "--cwd", dir, "--yes", "--isolation", "worktree")
	if code != ExitOK {
		t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, ExitOK, stdout, stderr)
	}
	m := branchLine.FindStringSubmatch(stdout)
	if m == nil {
		t.Fatalf("no branch and merge command:\n%s", stdout)
	}
	if !strings.Contains(stdout, "uncommitted changes (src/stock.py)") {
		t.Errorf("the run does not say it leaves the uncommitted change out:\n%s", stdout)
	}
	if !regexp.MustCompile(`(?m)^  task_\d+: .*docs/\S+\.md \+\d+ -0`).MatchString(stdout) {
		t.Errorf("no task's changes listed:\n%s", stdout)
	}
	if strings.Contains(stdout, "worktrees/") {
		t.Errorf("file paths inside Baton's worktrees are shown:\n%s", stdout)
	}
	pages, _ := filepath.Glob(filepath.Join(dir, "docs", "*.md"))
	if len(pages) > 0 {
		t.Fatalf("workers wrote into the user's tree before Apply: %v", pages)
	}
	if got := testsupport.Git(t, dir, "worktree", "list", "--porcelain"); strings.Count(got, "worktree ") != 1 {
		t.Fatalf("worktrees left:\n%s", got)
	}
	onBranch := testsupport.Git(t, dir, "ls-tree", "--name-only", m[1], "docs/")
	if !strings.Contains(onBranch, "docs/README.md") {
		t.Fatalf("the run branch holds no pages: %s", onBranch)
	}
	testsupport.Git(t, dir, "branch", "-D", m[1])

	// With --apply: the changes in the user's branch, nothing of Baton's left.
	code, stdout, stderr = run(t, "", "--host", "claude-code", "--claude", bin, "--template", "documentation",
		"--message", "Document this project", "--cwd", dir, "--yes", "--isolation", "worktree", "--apply")
	if code != ExitOK {
		t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, ExitOK, stdout, stderr)
	}
	if !strings.Contains(stdout, "Applied: main fast-forwarded") {
		t.Fatalf("not applied:\n%s", stdout)
	}
	pages, _ = filepath.Glob(filepath.Join(dir, "docs", "*.md"))
	if len(pages) == 0 {
		t.Fatalf("no pages in the user's tree after Apply:\n%s", stdout)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "src/stock.py")); string(b) != mine {
		t.Fatalf("the user's uncommitted change was touched: %q", b)
	}
	if got := strings.Fields(testsupport.Git(t, dir, "for-each-ref", "--format=%(refname:short)", "refs/heads/")); len(got) != 1 || got[0] != "main" {
		t.Fatalf("branches left: %v", got)
	}
	if got := testsupport.Git(t, dir, "worktree", "list", "--porcelain"); strings.Count(got, "worktree ") != 1 {
		t.Fatalf("worktrees left:\n%s", got)
	}
}

// TestRunWorktreeNotARepository: a worktree run in a plain folder is
// refused with the sentence that offers git init or shared isolation. (On
// the simulator, which writes no files, every run shares its folder.)
func TestRunWorktreeNotARepository(t *testing.T) {
	bin := claudecodetest.Binary(t)
	t.Setenv("BATON_CONFIG_DIR", t.TempDir())
	t.Setenv("HOME", t.TempDir())
	code, _, stderr := run(t, "", "--host", "claude-code", "--claude", bin, "--template", "test-coverage", "--message", "x", "--cwd", t.TempDir())
	if code != ExitError || !strings.Contains(stderr, "is not a git repository") || !strings.Contains(stderr, "git init") ||
		!strings.Contains(stderr, "--isolation shared") {
		t.Fatalf("exit %d, stderr:\n%s", code, stderr)
	}
}
