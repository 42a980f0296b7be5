package console

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/baton-app/baton/backend/claudecodetest"
	"github.com/baton-app/baton/backend/testsupport"
)

// baton runs one subcommand the way main does.
func baton(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = Main(args, Build{}, strings.NewReader(stdin), &out, &errOut)
	return code, out.String(), errOut.String()
}

var runIDLine = regexp.MustCompile(`(?m)^Run (orch_[0-9a-f]+): `)

// worktreeRun is a documentation run in worktree isolation on the real CLI
// in dir, answering its questions with stdin; it returns the run's id and what it
// printed, after checking its exit code.
func worktreeRun(t *testing.T, bin, dir, stdin string, want int) (string, string) {
	t.Helper()
	code, stdout, stderr := run(t, stdin, "--host", "claude-code", "--claude", bin, "--template", "documentation",
		"--message", "Document this project", "--cwd", dir, "--yes", "--isolation", "worktree")
	if code != want {
		t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, want, stdout, stderr)
	}
	m := runIDLine.FindStringSubmatch(stdout)
	if m == nil {
		t.Fatalf("no run id:\n%s", stdout)
	}
	return m[1], stdout
}

// cliEnv points the CLI at model-sim url, with Baton's own configuration
// folder.
func cliEnv(t *testing.T, url string) {
	t.Setenv("BATON_CONFIG_DIR", t.TempDir())
	t.Setenv("HOME", t.TempDir())
	t.Setenv("ANTHROPIC_BASE_URL", url)
	t.Setenv("ANTHROPIC_API_KEY", claudecodetest.APIKey)
	t.Setenv("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
}

func headsOf(t *testing.T, dir string) []string {
	return strings.Fields(testsupport.Git(t, dir, "for-each-ref", "--format=%(refname:short)", "refs/heads/"))
}

func worktreeCount(t *testing.T, dir string) int {
	return strings.Count(testsupport.Git(t, dir, "worktree", "list", "--porcelain"), "worktree ")
}

// TestApplyACompletedWithIssuesRun: a worktree run on the real CLI whose
// worker fails ends completed with issues; "baton apply" merges what the
// other tasks did into the user's branch and leaves nothing of Baton's.
func TestApplyACompletedWithIssuesRun(t *testing.T) {
	bin := claudecodetest.Binary(t)
	cliEnv(t, modelSim(t, "task_002", "worker-fails"))
	dir := pyRepo(t)
	// The failing worker's build needs Bash: allowed once for each of its
	// three tries.
	id, stdout := worktreeRun(t, bin, dir, "o\no\no\n", ExitIssues)
	for _, want := range []string{"task_002 failed", "Final report:", "Known limitations:", "baton apply " + id} {
		if !strings.Contains(stdout, want) {
			t.Errorf("the end of baton run lacks %q:\n%s", want, stdout)
		}
	}
	if pages, _ := filepath.Glob(filepath.Join(dir, "docs", "*.md")); len(pages) > 0 {
		t.Fatalf("pages in the user's tree before Apply: %v", pages)
	}
	code, out, errOut := baton(t, "", "apply", id)
	if code != ExitOK || !strings.Contains(out, "Applied: main fast-forwarded") || !strings.Contains(out, "By hand it is: git -C "+dir+" merge baton/"+id) {
		t.Fatalf("apply: exit %d\n%s%s", code, out, errOut)
	}
	if pages, _ := filepath.Glob(filepath.Join(dir, "docs", "*.md")); len(pages) == 0 {
		t.Fatal("no pages in the user's tree after Apply")
	}
	if heads := headsOf(t, dir); !slices.Equal(heads, []string{"main"}) || worktreeCount(t, dir) != 1 {
		t.Fatalf("left after Apply: branches %v, %d worktrees", heads, worktreeCount(t, dir))
	}
	// Applied once; a second time says so.
	if code, _, errOut := baton(t, "", "apply", id); code != ExitError || !strings.Contains(errOut, "was applied already") {
		t.Fatalf("second apply: exit %d: %s", code, errOut)
	}
}

// TestApplySomeTasksPushAndDiscard: on a worktree run of the real CLI, a
// task whose dependency is left out is refused with a sentence naming it;
// one task applied alone brings only its files; the branch is pushed to a
// bare repository, a pull request is opened with a fake gh (and without gh
// the command is printed); Discard then leaves no branch and no worktree.
func TestApplySomeTasksPushAndDiscard(t *testing.T) {
	bin := claudecodetest.Binary(t)
	cliEnv(t, modelSim(t))
	dir := pyRepo(t)
	bare := filepath.Join(t.TempDir(), "remote.git")
	testsupport.Git(t, dir, "init", "-q", "--bare", bare)
	testsupport.Git(t, dir, "remote", "add", "origin", bare)
	testsupport.Git(t, dir, "push", "-q", "origin", "main")
	id, _ := worktreeRun(t, bin, dir, "", ExitOK)
	branch := "baton/" + id

	// The plan: pages, then the index that depends on all of them.
	var pages []string
	index := ""
	for _, l := range strings.Split(testsupport.Git(t, dir, "log", "--first-parent", "--format=%s", branch, "^main"), "\n") {
		if m := regexp.MustCompile(`^Baton: merge (task_\d+)`).FindStringSubmatch(l); m != nil {
			if index == "" {
				index = m[1] // the last merge
			} else {
				pages = append(pages, m[1])
			}
		}
	}
	if index == "" || len(pages) < 2 {
		t.Fatalf("merges on %s: index %q, pages %v", branch, index, pages)
	}
	slices.Sort(pages)
	code, out, errOut := baton(t, "", "apply", id, "--task", index)
	if code != ExitError || !strings.Contains(errOut, index+" depends on "+pages[0]+", whose changes you left out: pick "+pages[0]+" too, or leave "+index+" out") {
		t.Fatalf("apply of the index alone: exit %d\n%s%s", code, out, errOut)
	}
	if !strings.Contains(errOut, "By hand: git -C "+dir+" cherry-pick -m 1 ") {
		t.Errorf("no command by hand:\n%s", errOut)
	}
	code, out, errOut = baton(t, "", "apply", id, "--task", pages[0])
	if code != ExitOK || !strings.Contains(out, "keeps the other tasks' changes") {
		t.Fatalf("apply of %s: exit %d\n%s%s", pages[0], code, out, errOut)
	}
	onMain := testsupport.Git(t, dir, "diff", "--name-only", "HEAD~1", "HEAD")
	onTask := testsupport.Git(t, dir, "log", "-1", "--format=", "--name-only", "-m", "--first-parent", "--grep", "merge "+pages[0], branch)
	if strings.TrimSpace(onMain) == "" || strings.TrimSpace(onMain) != strings.TrimSpace(onTask) {
		t.Fatalf("main got %q, the task changed %q", onMain, onTask)
	}

	// Push to the bare remote, then a pull request with a fake gh.
	code, out, errOut = baton(t, "", "push", id)
	if code != ExitOK || !strings.Contains(out, "Pushed "+branch+" to origin") {
		t.Fatalf("push: exit %d\n%s%s", code, out, errOut)
	}
	if got, want := testsupport.Git(t, bare, "rev-parse", branch), testsupport.Git(t, dir, "rev-parse", branch); got != want {
		t.Fatalf("the remote has %s, the branch is %s", got, want)
	}
	ghDir := t.TempDir()
	gh := "#!/bin/sh\n[ \"$1\" = auth ] && exit 0\nprintf '%s\\n' \"$@\" > " + ghDir + "/args\ncat > " + ghDir + "/body\necho https://github.com/o/shop/pull/1\n"
	if err := os.WriteFile(filepath.Join(ghDir, "gh"), []byte(gh), 0o755); err != nil {
		t.Fatal(err)
	}
	path := os.Getenv("PATH")
	t.Setenv("PATH", ghDir+string(os.PathListSeparator)+path)
	code, out, errOut = baton(t, "", "push", id, "--pull-request")
	if code != ExitOK || !strings.Contains(out, "Pull request: https://github.com/o/shop/pull/1") {
		t.Fatalf("pull request: exit %d\n%s%s", code, out, errOut)
	}
	args, _ := os.ReadFile(filepath.Join(ghDir, "args"))
	body, _ := os.ReadFile(filepath.Join(ghDir, "body"))
	if !strings.Contains(string(args), "--head\n"+branch+"\n--title\nDocument this project\n") || !strings.Contains(string(args), "--base\nmain") ||
		!strings.Contains(string(body), "**Outcome: completed.**") || !strings.Contains(string(body), "- [x] `"+index+"`") {
		t.Fatalf("gh got:\n%s\nbody:\n%s", args, body)
	}
	// Without gh on PATH: the exact command and the text in a file.
	noGH := t.TempDir()
	gitBin, _ := exec.LookPath("git")
	if err := os.Symlink(gitBin, filepath.Join(noGH, "git")); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", noGH)
	code, out, errOut = baton(t, "", "push", id, "--pull-request")
	m := regexp.MustCompile(`(?m)^  (cd \S+ && gh pr create --head ` + regexp.QuoteMeta(branch) + ` --base main --title 'Document this project' --body-file (\S+))$`).FindStringSubmatch(out)
	if code != ExitOK || !strings.Contains(out, "No pull request was opened: the GitHub CLI (gh) is not installed") || m == nil {
		t.Fatalf("pull request without gh: exit %d\n%s%s", code, out, errOut)
	}
	if b, err := os.ReadFile(m[2]); err != nil || !strings.Contains(string(b), "Made by Baton run `"+id+"`") {
		t.Fatalf("the command's text file: %v\n%s", err, b)
	}
	t.Setenv("PATH", path)

	// Discard says what goes, asks, and leaves nothing of Baton's.
	code, out, _ = baton(t, "n\n", "discard", id)
	if code != ExitCancelled || !strings.Contains(out, "Discard deletes the branch "+branch) || !slices.Contains(headsOf(t, dir), branch) {
		t.Fatalf("discard refused: exit %d\n%s", code, out)
	}
	code, out, errOut = baton(t, "y\n", "discard", id)
	if code != ExitOK || !strings.Contains(out, "The copy pushed to origin stays there.") {
		t.Fatalf("discard: exit %d\n%s%s", code, out, errOut)
	}
	if heads := headsOf(t, dir); !slices.Equal(heads, []string{"main"}) || worktreeCount(t, dir) != 1 {
		t.Fatalf("left after Discard: branches %v, %d worktrees", heads, worktreeCount(t, dir))
	}
	left, _ := filepath.Glob(filepath.Join(os.Getenv("BATON_CONFIG_DIR"), "worktrees", id+"*"))
	if len(left) > 0 {
		t.Fatalf("Baton's folders of the run are left: %v", left)
	}
}
