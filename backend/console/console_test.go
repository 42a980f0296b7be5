package console

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/baton-app/baton/backend/testsupport"
)

// run calls "baton run" in a fresh config directory shared by the test.
func run(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = RunCLI(args, strings.NewReader(stdin), &out, &errOut)
	return code, out.String(), errOut.String()
}

// samples holds each test's copy of testdata/sample.
var samples sync.Map

// sample is the test's copy of testdata/sample as a git repository with
// one commit (the same one for every call of a test): the stand-ins'
// workers write into the folder they work on, and worktree templates need
// a repository.
func sample(t *testing.T) string {
	t.Helper()
	if dir, ok := samples.Load(t); ok {
		return dir.(string)
	}
	dir := freshSample(t)
	samples.Store(t, dir)
	return dir
}

// freshSample is a new copy of testdata/sample as a git repository with
// one commit, at every call.
func freshSample(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "sample")
	if err := os.CopyFS(dir, os.DirFS("testdata/sample")); err != nil {
		t.Fatal(err)
	}
	testsupport.Git(t, dir, "init", "-q", "-b", "main")
	testsupport.Git(t, dir, "add", "-A")
	testsupport.Git(t, dir, "commit", "-q", "-m", "sample")
	return dir
}

var runIDPattern = regexp.MustCompile(`Run (orch_[0-9a-f]+)`)

func TestRunBadInput(t *testing.T) {
	t.Setenv("BATON_CONFIG_DIR", t.TempDir())
	tests := []struct {
		name string
		args []string
		want string
		code int
	}{
		{"no arguments", nil, "needs --template and --message", ExitUsage},
		{"no message", []string{"--template", "documentation"}, "needs --template and --message", ExitUsage},
		{"bad var", []string{"--template", "documentation", "--message", "x", "--var", "novalue"}, "--var takes NAME=VALUE", ExitUsage},
		{"unknown host", []string{"--template", "documentation", "--message", "x", "--host", "cloud"}, "--host must be sim, desktop or claude-code", ExitError},
		{"missing folder", []string{"--template", "documentation", "--message", "x", "--cwd", "/nonexistent/baton"}, "does not exist", ExitError},
		{"unknown template", []string{"--template", "nope", "--message", "x", "--cwd", "."}, "nope", ExitError},
		{"resume unknown run", []string{"--resume", "orch_000000000000"}, "cannot resume orch_000000000000", ExitError},
		{"stray argument", []string{"--template", "documentation", "--message", "x", "extra"}, "unexpected argument", ExitUsage},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, stderr := run(t, "", tt.args...)
			if code != tt.code || !strings.Contains(stderr, tt.want) {
				t.Fatalf("exit %d, stderr %q; want exit %d mentioning %q", code, stderr, tt.code, tt.want)
			}
		})
	}
	var out, errOut bytes.Buffer
	if code := HistoryCLI(nil, &out, &errOut); code != ExitOK || !strings.Contains(out.String(), "No runs found.") {
		t.Fatalf("history of an empty store: exit %d, %q %q", code, out.String(), errOut.String())
	}
	errOut.Reset()
	if code := HistoryCLI([]string{"--status", "flying"}, &out, &errOut); code != ExitError || !strings.Contains(errOut.String(), `"flying" is not a run status`) {
		t.Fatalf("history --status flying: exit %d, %q", code, errOut.String())
	}
	errOut.Reset()
	if code := ShowCLI([]string{"orch_missing"}, &out, &errOut); code != ExitError || !strings.Contains(errOut.String(), `there is no run "orch_missing"`) {
		t.Fatalf("show of a missing run: exit %d, %q", code, errOut.String())
	}
}

// TestRunDocumentationOnTheSimulator runs a whole documentation orchestration
// through real Chromium and the simulator, then finds it in the history.
func TestRunDocumentationOnTheSimulator(t *testing.T) {
	testsupport.NeedChromium(t)
	t.Setenv("BATON_CONFIG_DIR", t.TempDir())
	code, stdout, stderr := run(t, "", "--template", "documentation", "--cwd", sample(t),
		"--message", "Document the api and store packages", "--yes", "--host", "sim", "--sim-speed", "50")
	if code != ExitOK {
		t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, ExitOK, stdout, stderr)
	}
	m := runIDPattern.FindStringSubmatch(stdout)
	if m == nil || !strings.Contains(stdout, "completed:") {
		t.Fatalf("no run id or completion in the output:\n%s", stdout)
	}
	for _, want := range []string{"phase analysis", "phase taskPlanning", "phase aggregation", "Proposed tasks"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, stdout)
		}
	}

	var out, errOut bytes.Buffer
	if code := HistoryCLI([]string{"--status", "completed"}, &out, &errOut); code != ExitOK || !strings.Contains(out.String(), m[1]) {
		t.Fatalf("history does not list %s: exit %d\n%s%s", m[1], code, out.String(), errOut.String())
	}
	out.Reset()
	if code := ShowCLI([]string{m[1]}, &out, &errOut); code != ExitOK || !strings.Contains(out.String(), "Status:  completed") || !strings.Contains(out.String(), "task_001") {
		t.Fatalf("show %s: exit %d\n%s%s", m[1], code, out.String(), errOut.String())
	}
}

func TestRunAsksBeforeStartingTasks(t *testing.T) {
	testsupport.NeedChromium(t)
	t.Setenv("BATON_CONFIG_DIR", t.TempDir())
	code, stdout, stderr := run(t, "n\n", "--template", "documentation", "--cwd", sample(t),
		"--message", "Document the store", "--host", "sim", "--sim-speed", "50")
	if code != ExitCancelled || !strings.Contains(stdout, "Start these tasks? [y/N]") || !strings.Contains(stdout, "Cancelled") {
		t.Fatalf("answering n: exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	// A refused plan leaves nothing in the history.
	var out, errOut bytes.Buffer
	if code := HistoryCLI(nil, &out, &errOut); code != ExitOK || !strings.Contains(out.String(), "No runs found.") {
		t.Fatalf("history after a refused plan: exit %d, %q %q", code, out.String(), errOut.String())
	}
}

// A --cdp endpoint Baton refuses (not on this machine) stores no run.
func TestRunRefusedCDPStoresNothing(t *testing.T) {
	t.Setenv("BATON_CONFIG_DIR", t.TempDir())
	code, stdout, stderr := run(t, "", "--template", "documentation", "--cwd", sample(t),
		"--message", "Document the store", "--yes", "--cdp", "http://192.0.2.1:9222")
	if code != ExitError {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	var out, errOut bytes.Buffer
	if code := HistoryCLI(nil, &out, &errOut); code != ExitOK || !strings.Contains(out.String(), "No runs found.") {
		t.Fatalf("history after a refused --cdp: exit %d, %q %q", code, out.String(), errOut.String())
	}
}

func TestRunWithAFailingWorkerNamesIt(t *testing.T) {
	testsupport.NeedChromium(t)
	t.Setenv("BATON_CONFIG_DIR", t.TempDir())
	code, stdout, stderr := run(t, "", "--template", "documentation", "--cwd", sample(t),
		"--message", "Document everything", "--yes", "--host", "sim", "--sim-speed", "50", "--scenario", "worker-fails")
	// Every task fails: the run did nothing useful.
	if code != ExitFailed {
		t.Fatalf("exit %d, want %d (failed)\nstdout:\n%s\nstderr:\n%s", code, ExitFailed, stdout, stderr)
	}
	if !strings.Contains(stdout, " failed: 0 of ") || !strings.Contains(stdout, "Issues:\n  - None of the ") {
		t.Fatalf("the outcome and its issues are not printed:\n%s", stdout)
	}
	if !regexp.MustCompile(`- task_\d+ failed: \S`).MatchString(stdout) {
		t.Fatalf("the failed task is not named with its reason:\n%s", stdout)
	}
}

// TestRunAsksWhatTheRunWaitsFor: what a run waits for from the user is
// asked on the terminal and the answers typed there move the run on: a
// worker's question (sparc, clarification), a permission prompt, and a
// review the template leaves to the user (rejected once with a reason).
func TestRunAsksWhatTheRunWaitsFor(t *testing.T) {
	testsupport.NeedChromium(t)
	answers := func(line string) string { return strings.Repeat(line+"\n", 20) }
	tests := []struct {
		name  string
		stdin string
		args  []string
		want  []string
	}{
		{"question", answers("Markdown, like the README"),
			[]string{"--template", "sparc", "--message", "Specify the health endpoint", "--scenario", "clarification"},
			[]string{"asks:\n  - Should the output of", "Your answer (Enter leaves the question open): ", "got the answer"}},
		{"permission", answers("o"),
			[]string{"--template", "test-coverage", "--message", "Cover the store", "--scenario", "needs-permission", "--permission-mode", "default"},
			[]string{"asks permission: Write", "Allow it? o once, a always, d deny"}},
		// AskUserQuestion, of the main session and of the workers: the
		// options are listed and picked by number in the terminal.
		{"AskUserQuestion", answers("2"),
			[]string{"--template", "documentation", "--message", "Document the store", "--scenario", "asks-question"},
			[]string{"The main session asks: Which part should I start with?", "  1. Backend — Go code\n  2. Frontend — Svelte code",
				"Your answer: a number or your own words (Enter leaves the question open): ", "task_001 asks: Which part should I start with?"}},
		{"review", "The summary is too short\n" + answers("y"),
			[]string{"--template", "my-review", "--message", "Build the health endpoint"},
			[]string{"waits for your review: ", "rejected: rejected by the user: The summary is too short"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			config := t.TempDir()
			t.Setenv("BATON_CONFIG_DIR", config)
			if err := os.MkdirAll(filepath.Join(config, "templates"), 0o700); err != nil {
				t.Fatal(err)
			}
			custom := `{"id": "my-review", "name": "My review", "extends": "team-review", "phases": {"review": {"reviewer": "user"}}}`
			if err := os.WriteFile(filepath.Join(config, "templates", "my-review.json"), []byte(custom), 0o600); err != nil {
				t.Fatal(err)
			}
			// A copy: the review's mailbox goes into the project folder.
			project := t.TempDir()
			if err := os.CopyFS(project, os.DirFS(sample(t))); err != nil {
				t.Fatal(err)
			}
			args := append([]string{"--cwd", project, "--yes", "--host", "sim", "--sim-speed", "50"}, tt.args...)
			code, stdout, stderr := run(t, tt.stdin, args...)
			if code != ExitOK {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, ExitOK, stdout, stderr)
			}
			for _, w := range tt.want {
				if !strings.Contains(stdout, w) {
					t.Errorf("output lacks %q:\n%s", w, stdout)
				}
			}
		})
	}
}

// Without input (stdin at its end), the first question pauses the run and
// the command ends with exit code 7 within seconds, saying what waits and
// how to answer it; the run is listed as paused.
func TestRunWithoutInputPausesAtTheFirstQuestion(t *testing.T) {
	testsupport.NeedChromium(t)
	bin := buildBaton(t)
	config := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "run", "--host", "sim", "--sim-speed", "50", "--cwd", sample(t), "--yes",
		"--template", "sparc", "--message", "Specify the health endpoint", "--scenario", "clarification")
	cmd.Env = append(os.Environ(), "BATON_CONFIG_DIR="+config)
	cmd.Stdin = strings.NewReader("")
	cmd.Stderr = io.Discard
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var all strings.Builder
	var asked time.Time
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		all.WriteString(sc.Text() + "\n")
		if asked.IsZero() && strings.Contains(sc.Text(), " asks a question") {
			asked = time.Now()
		}
	}
	err = cmd.Wait()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != ExitWaiting {
		t.Fatalf("%v, want exit code %d; output:\n%s", err, ExitWaiting, all.String())
	}
	if asked.IsZero() || time.Since(asked) > 5*time.Second {
		t.Errorf("the command ended %s after the question", time.Since(asked))
	}
	got := all.String()
	m := runIDPattern.FindStringSubmatch(got)
	if m == nil || !strings.Contains(got, "Nobody is here to answer: CODE-") || !strings.Contains(got, " asks: Should the output of") ||
		!strings.Contains(got, "Paused "+m[1]+". Answer in Baton's window") || !strings.Contains(got, "baton run --resume "+m[1]) {
		t.Fatalf("output:\n%s", got)
	}
	var active strings.Builder
	list := exec.Command(bin, "active")
	list.Env, list.Stdout = cmd.Env, &active
	if err := list.Run(); err != nil || !strings.Contains(active.String(), m[1]) || !strings.Contains(active.String(), "paused") {
		t.Errorf("baton active (%v):\n%s", err, active.String())
	}
}
