package console

import (
	"bufio"
	"context"
	"errors"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/baton-app/baton/backend/claudecodetest"
)

// cliEnviron is the environment of a baton process whose Claude Code CLI
// (the pinned one) talks to model-sim at url, in its own config folder
// (cliEnv sets the same in this process).
func cliEnviron(t *testing.T, url string) []string {
	t.Helper()
	return append(os.Environ(), "BATON_CONFIG_DIR="+t.TempDir(), "HOME="+t.TempDir(),
		"ANTHROPIC_BASE_URL="+url, "ANTHROPIC_API_KEY="+claudecodetest.APIKey, "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1")
}

// batonRun runs the baton binary with stdin and returns its exit code, its
// output, and when the first line containing mark came (zero: none).
func batonRun(t *testing.T, ctx context.Context, bin string, env []string, stdin, mark string, args ...string) (int, string, time.Time) {
	t.Helper()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env, cmd.Stdin = env, strings.NewReader(stdin)
	var errOut strings.Builder
	cmd.Stderr = &errOut
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var all strings.Builder
	var at time.Time
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		all.WriteString(sc.Text() + "\n")
		if at.IsZero() && strings.Contains(sc.Text(), mark) {
			at = time.Now()
		}
	}
	err = cmd.Wait()
	code := 0
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		code = exit.ExitCode()
	case err != nil:
		t.Fatalf("baton %s: %v\n%s", args[0], err, all.String())
	}
	return code, all.String() + errOut.String(), at
}

// With stdin at its end, a worker's permission prompt on the real CLI
// pauses the run and ends "baton run" with exit code 7 within seconds; the
// prompt is asked again by "baton run --resume", whose answer lets the run
// finish.
func TestPermissionWithoutInputPausesOnClaudeCode(t *testing.T) {
	bin := buildBaton(t)
	claude := claudecodetest.Binary(t)
	env := cliEnviron(t, modelSim(t, "task_001", "needs-permission"))
	dir := pyProject(t)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	code, out, asked := batonRun(t, ctx, bin, env, "", "waits for permission", "run", "--host", "claude-code", "--claude", claude,
		"--template", "documentation", "--message", "Document this project", "--cwd", dir, "--yes", "--permission-mode", "default")
	if code != ExitWaiting {
		t.Fatalf("exit %d, want %d:\n%s", code, ExitWaiting, out)
	}
	if asked.IsZero() || time.Since(asked) > 5*time.Second {
		t.Errorf("the command ended %s after the permission prompt", time.Since(asked))
	}
	m := runIDPattern.FindStringSubmatch(out)
	// In the default mode every worker's first write asks: whichever asks
	// first pauses the run.
	asking := regexp.MustCompile(`Nobody is here to answer: (task_\d+) asks permission: (\w+)`).FindStringSubmatch(out)
	if m == nil || asking == nil ||
		!strings.Contains(out, "baton run --resume "+m[1]) {
		t.Fatalf("output:\n%s", out)
	}
	code, out, _ = batonRun(t, ctx, bin, env, strings.Repeat("o\n", 10), "", "run", "--resume", m[1], "--host", "claude-code", "--claude", claude)
	if code != ExitOK || !strings.Contains(out, asking[1]+" asks permission: "+asking[2]) || !strings.Contains(out, "Allow it?") {
		t.Fatalf("resume: exit %d:\n%s", code, out)
	}
}

// --non-interactive reads nothing, even with input there: the main
// session's question pauses the run at once (exit 7).
func TestNonInteractiveMainQuestionPausesOnClaudeCode(t *testing.T) {
	bin := buildBaton(t)
	claude := claudecodetest.Binary(t)
	env := cliEnviron(t, modelSim(t, "Step 1: analysis", "asks-question"))
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	code, out, asked := batonRun(t, ctx, bin, env, "1\n1\n", "Nobody is here", "run", "--host", "claude-code", "--claude", claude,
		"--template", "documentation", "--message", "Document this project", "--cwd", pyProject(t), "--non-interactive")
	if code != ExitWaiting || asked.IsZero() {
		t.Fatalf("exit %d, want %d:\n%s", code, ExitWaiting, out)
	}
	if !strings.Contains(out, "Nobody is here to answer: the main session asks a question: ") || strings.Contains(out, "Your answer") {
		t.Fatalf("output:\n%s", out)
	}
}

// A run killed during its analysis and resumed without --yes and with no
// input is paused at the plan it then waits for (exit 7), never cancelled
// or removed: "baton show" still has it, and "--resume --yes" finishes it.
func TestResumedRunWithoutInputIsKept(t *testing.T) {
	bin := buildBaton(t)
	claude := claudecodetest.Binary(t)
	env := cliEnviron(t, modelSim(t, "Step 1: analysis", "slow delay=25"))
	dir := pyProject(t)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	first := exec.CommandContext(ctx, bin, "run", "--host", "claude-code", "--claude", claude, "--template", "documentation",
		"--message", "Document this project", "--cwd", dir, "--yes")
	first.Env = env
	out, err := first.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := first.Start(); err != nil {
		t.Fatal(err)
	}
	var runID string
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		if m := runIDPattern.FindStringSubmatch(sc.Text()); m != nil {
			runID = m[1]
		}
		if strings.Contains(sc.Text(), "phase analysis (analyzing)") {
			time.Sleep(time.Second) // the main session is at work
			_ = first.Process.Kill()
			break
		}
	}
	_ = first.Wait()
	if runID == "" {
		t.Fatal("the run did not start its analysis")
	}
	code, res, _ := batonRun(t, ctx, bin, env, "", "", "run", "--resume", runID, "--host", "claude-code", "--claude", claude)
	if code != ExitWaiting || !strings.Contains(res, "Start these tasks? [y/N]") ||
		!strings.Contains(res, "Nobody is here to answer: the task list waits for your confirmation") || strings.Contains(res, "Cancelled") {
		t.Fatalf("resume without input: exit %d:\n%s", code, res)
	}
	code, shown, _ := batonRun(t, ctx, bin, env, "", "", "show", runID)
	if code != ExitOK || !strings.Contains(shown, "paused") {
		t.Fatalf("baton show %s: exit %d:\n%s", runID, code, shown)
	}
	code, res, _ = batonRun(t, ctx, bin, env, "", "", "run", "--resume", runID, "--host", "claude-code", "--claude", claude, "--yes")
	if code != ExitOK {
		t.Fatalf("resume --yes: exit %d:\n%s", code, res)
	}
}
