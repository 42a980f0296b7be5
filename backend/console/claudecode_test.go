package console

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/baton-app/baton/backend/claudecodetest"
	"github.com/baton-app/baton/backend/modelsim"
	"github.com/baton-app/baton/backend/testsupport"
)

// modelSim starts a model-sim for the test and returns its URL; rules are
// MATCH, SCENARIO pairs.
func modelSim(t *testing.T, rules ...string) string {
	t.Helper()
	sim, err := modelsim.New(modelsim.Options{Logger: quietLogger(io.Discard)})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(rules); i += 2 {
		if err := sim.SetScenario(rules[i], rules[i+1]); err != nil {
			t.Fatal(err)
		}
	}
	if err := sim.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = sim.Shutdown(ctx)
	})
	return sim.URL()
}

// pyProject is a small project without tests (so no worker asks to run
// any).
func pyProject(t *testing.T) string {
	t.Helper()
	return testsupport.Project(t, map[string]string{
		"README.md":     "# shop\n\nA tiny shop.\n",
		"src/cart.py":   "def total(prices):\n    return sum(prices)\n",
		"src/stock.py":  "def count(items):\n    return len(items)\n",
		"tools/load.py": "def load(path):\n    return open(path).read()\n",
	})
}

var filesLine = regexp.MustCompile(`(?m)^Files: (.+)$`)

// cliChildren lists the live processes of the Claude Code binary bin whose
// working directory is dir.
func cliChildren(bin, dir string) []int {
	return cliProcesses(bin, func(cwd string) bool { return cwd == dir })
}

// cliProcesses lists the live processes of the Claude Code binary bin whose
// working directory is accepted by inDir.
func cliProcesses(bin string, inDir func(cwd string) bool) []int {
	var out []int
	real, _ := filepath.EvalSymlinks(bin)
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		exe, _ := os.Readlink(filepath.Join("/proc", e.Name(), "exe"))
		cwd, _ := os.Readlink(filepath.Join("/proc", e.Name(), "cwd"))
		if stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat")); err == nil && strings.Contains(string(stat), ") Z ") {
			continue
		}
		if exe != "" && (exe == real || exe == bin) && inDir(cwd) {
			out = append(out, pid)
		}
	}
	return out
}

// TestRunOnClaudeCode is "baton run --host claude-code" with the real CLI
// and model-sim: exit 0, the workers' pages in the folder, and no CLI
// process left.
func TestRunOnClaudeCode(t *testing.T) {
	bin := claudecodetest.Binary(t)
	url := modelSim(t)
	t.Setenv("BATON_CONFIG_DIR", t.TempDir())
	t.Setenv("HOME", t.TempDir())
	t.Setenv("ANTHROPIC_BASE_URL", url)
	t.Setenv("ANTHROPIC_API_KEY", claudecodetest.APIKey)
	t.Setenv("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
	dir := pyProject(t)
	code, stdout, stderr := run(t, "", "--host", "claude-code", "--claude", bin, "--template", "documentation",
		"--message", "Document this project", "--cwd", dir, "--yes")
	if code != ExitOK {
		t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, ExitOK, stdout, stderr)
	}
	if !strings.Contains(stdout, "host: Claude Code CLI 2.") || !strings.Contains(stdout, "completed:") {
		t.Errorf("output:\n%s", stdout)
	}
	m := filesLine.FindStringSubmatch(stdout)
	if m == nil {
		t.Fatalf("no files listed:\n%s", stdout)
	}
	written := 0
	for _, f := range strings.Split(m[1], ", ") {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("%s is listed but not in the folder: %v", f, err)
		}
		if strings.HasPrefix(f, "docs/") && strings.HasSuffix(f, ".md") {
			written++
		}
	}
	if written == 0 {
		t.Errorf("no worker wrote its page: %s", m[1])
	}
	if left := cliChildren(bin, dir); len(left) > 0 {
		t.Errorf("CLI processes left after baton run: %v", left)
	}
}

// TestRunAnswersAQuestionOnClaudeCode: a worker's AskUserQuestion call is
// asked on the terminal and the answer goes into the call.
func TestRunAnswersAQuestionOnClaudeCode(t *testing.T) {
	bin := claudecodetest.Binary(t)
	url := modelSim(t, "task_001", "asks-question")
	t.Setenv("BATON_CONFIG_DIR", t.TempDir())
	t.Setenv("HOME", t.TempDir())
	t.Setenv("ANTHROPIC_BASE_URL", url)
	t.Setenv("ANTHROPIC_API_KEY", claudecodetest.APIKey)
	t.Setenv("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
	code, stdout, stderr := run(t, "Backend\n", "--host", "claude-code", "--claude", bin, "--template", "documentation",
		"--message", "Document this project", "--cwd", pyProject(t), "--yes")
	if code != ExitOK {
		t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, ExitOK, stdout, stderr)
	}
	if !strings.Contains(stdout, "task_001 asks: Which part should I start with?") || !strings.Contains(stdout, "Your answer") {
		t.Errorf("the question was not asked on the terminal:\n%s", stdout)
	}
	if strings.Contains(stdout, "could not") || strings.Contains(stdout, "Baton's window") {
		t.Errorf("the answer did not go through:\n%s", stdout)
	}
}

// TestCrashAndResumeOnClaudeCode kills "baton run --host claude-code" with
// SIGKILL once workers run: its CLI children die with it. A plain "baton
// run --resume" (no --host, while the saved settings choose the simulator)
// then finishes the run on the CLI it ran on, each task in exactly one
// worker session, the cut ones going on with claude --resume: a run never
// silently continues on the simulator.
func TestCrashAndResumeOnClaudeCode(t *testing.T) {
	cli := claudecodetest.Binary(t)
	bin := buildBaton(t)
	url := modelSim(t)
	config := t.TempDir()
	dir := pyProject(t)
	env := append(claudecodetest.Env(t.TempDir(), url), "BATON_CONFIG_DIR="+config)
	// One worker at a time: a resumed worker then redoes its edits on files
	// no other worker changed since it read them (the scripted agent's
	// workers share the folder's top-level files).
	if err := os.MkdirAll(filepath.Join(config, "templates"), 0o700); err != nil {
		t.Fatal(err)
	}
	serial := `{"id": "doc-serial", "name": "Documentation, one worker", "extends": "documentation", "config": {"maxWorkers": 1}}`
	if err := os.WriteFile(filepath.Join(config, "templates", "doc-serial.json"), []byte(serial), 0o600); err != nil {
		t.Fatal(err)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	first := exec.CommandContext(ctx, bin, "run", "--host", "claude-code", "--claude", cli, "--template", "doc-serial",
		"--cwd", dir, "--message", "Document this project", "--yes")
	first.Env = env
	runID, killed := killAtFirstWorker(t, first)
	if runID == "" || !killed {
		t.Fatalf("the run did not reach the worker phase (run %q)", runID)
	}
	deadline := time.Now().Add(5 * time.Second)
	for len(cliChildren(cli, dir)) > 0 && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if left := cliChildren(cli, dir); len(left) > 0 {
		t.Fatalf("CLI processes outlived the killed baton: %v", left)
	}

	// The settings say simulator, as they do by default; the run's own
	// host wins.
	if err := os.WriteFile(filepath.Join(config, "settings.json"), []byte(`{"host": "simulator"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	resume := exec.CommandContext(ctx, bin, "run", "--resume", runID, "--yes")
	resume.Env = env
	res, err := resume.CombinedOutput()
	if err != nil || !strings.Contains(string(res), "completed: ") || mentionsFailure(string(res)) {
		t.Fatalf("resume %s: %v\n%s", runID, err, res)
	}
	if want := fmt.Sprintf("Resuming %s (host: Claude Code CLI %s (%s))", runID, claudecodetest.Version, cli); !strings.Contains(string(res), want) {
		t.Errorf("the resume does not name the run's CLI (%q):\n%s", want, res)
	}
	if sims, _ := filepath.Glob(filepath.Join(config, "simulator", "*")); len(sims) > 0 {
		t.Errorf("the resume used the simulator: %v", sims)
	}
	metas, _ := filepath.Glob(filepath.Join(config, "claude-code", "*.json"))
	perTask := map[string]int{}
	for _, p := range metas {
		b, _ := os.ReadFile(p)
		var m struct{ ID string }
		_ = json.Unmarshal(b, &m)
		if _, rest, ok := strings.Cut(m.ID, runID+"_worker_"); ok {
			task, _, _ := strings.Cut(rest, "-r")
			perTask[task]++
		}
	}
	if len(perTask) == 0 {
		t.Fatalf("no worker sessions of %s in %s", runID, filepath.Join(config, "claude-code"))
	}
	for task, n := range perTask {
		if n != 1 {
			t.Errorf("task %s has %d worker sessions, want 1; resumed run:\n%s", task, n, res)
		}
	}
	if left := cliChildren(cli, dir); len(left) > 0 {
		t.Errorf("CLI processes left after the resumed run: %v", left)
	}
}

// TestDoctorClaudeCode is "baton doctor --host claude-code": the pinned CLI
// with model-sim passes every check; a missing binary fails with one
// sentence saying what to do.
func TestDoctorClaudeCode(t *testing.T) {
	bin := claudecodetest.Binary(t)
	url := modelSim(t)
	t.Setenv("HOME", t.TempDir())
	t.Setenv("ANTHROPIC_BASE_URL", url)
	t.Setenv("ANTHROPIC_API_KEY", claudecodetest.APIKey)
	t.Setenv("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
	var out, errOut strings.Builder
	if code := DoctorCLI([]string{"--host", "claude-code", "--claude", bin}, &out, &errOut); code != 0 {
		t.Fatalf("doctor: exit %d\n%s%s", code, out.String(), errOut.String())
	}
	for _, want := range []string{"ok   Claude Code CLI", "ok   Version", "ok   A tiny request", "Baton can run its sessions with Claude Code " + claudecodetest.Version} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("doctor output lacks %q:\n%s", want, out.String())
		}
	}
	out.Reset()
	missing := filepath.Join(t.TempDir(), "claude")
	if code := DoctorCLI([]string{"--claude", missing}, &out, &errOut); code != 1 || !strings.Contains(out.String(), "FAIL Claude Code CLI") || !strings.Contains(out.String(), "fix: Install Claude Code") {
		t.Errorf("doctor with a missing CLI: exit %d\n%s", code, out.String())
	}
}
