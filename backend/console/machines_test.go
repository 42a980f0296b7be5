//go:build linux

package console

import (
	"bufio"
	"bytes"
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
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/baton-app/baton/backend/claudecodetest"
	"github.com/baton-app/baton/backend/machines/sshtest"
	"github.com/baton-app/baton/backend/modelsim"
	"github.com/baton-app/baton/backend/service"
	"github.com/baton-app/baton/backend/testsupport"
	"github.com/baton-app/baton/backend/view"
)

// otherMachine is a real sshd playing another machine for the console's
// commands: its ssh config and the CLI's environment there are given to
// Baton through BATON_SSH_CONFIG and BATON_MACHINE_ENV, and the CLI there
// reaches a model-sim of the test through the reverse forward. It returns
// the server, the pinned CLI as that user runs it, and model-sim's log.
func otherMachine(t *testing.T) (*sshtest.Server, string, *lockedLog) {
	t.Helper()
	s, claude, log, _ := otherMachineSim(t)
	return s, claude, log
}

// otherMachineSim is otherMachine with its model-sim, for CLIs here too.
func otherMachineSim(t *testing.T) (*sshtest.Server, string, *lockedLog, *modelsim.Server) {
	t.Helper()
	log := &lockedLog{}
	sim, err := modelsim.New(modelsim.Options{Logger: quietLogger(&bytes.Buffer{}), Log: log})
	if err != nil {
		t.Fatal(err)
	}
	if err := sim.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = sim.Shutdown(ctx)
	})
	s := sshtest.Start(t, sshtest.Options{Forward: strings.TrimPrefix(sim.URL(), "http://")})
	claude := s.Claude(t)
	t.Setenv("BATON_CONFIG_DIR", t.TempDir())
	t.Setenv(service.EnvSSHConfig, s.ConfigFile)
	t.Setenv(service.EnvMachineEnv, strings.Join(s.CLIEnv(), "\n"))
	return s, claude, log, sim
}

// lockedLog is model-sim's request log.
type lockedLog struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *lockedLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *lockedLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

func machinesCmd(args ...string) (int, string, string) {
	var out, errOut bytes.Buffer
	code := Main(append([]string{"machines"}, args...), Build{}, strings.NewReader(""), &out, &errOut)
	return code, out.String(), errOut.String()
}

// TestMachinesCommands: "baton machines" adds a real machine (an sshd on
// loopback), lists it, tests it with a tiny request answered through the
// SSH connection, refuses a password and an unknown host key with the
// command that trusts it, and removes it.
func TestMachinesCommands(t *testing.T) {
	s, claude, requests := otherMachine(t)

	if code, out, errOut := machinesCmd("list"); code != 0 || !strings.Contains(out, "No machines") {
		t.Fatalf("list with none: %d %q %q", code, out, errOut)
	}
	code, out, errOut := machinesCmd("add", "other", "--host", sshtest.Alias, "--workspace", s.Workspace, "--claude", claude, "--max-workers", "3", "--env", "BATON_TEST_TOKEN")
	if code != 0 || !strings.Contains(out, "Added other") || !strings.Contains(out, "Baton reaches other over SSH") {
		t.Fatalf("add: %d\n%s%s", code, out, errOut)
	}
	// A password is refused and never written; so are values of variables.
	code, _, errOut = machinesCmd("add", "pw", "--host", "ana:hunter2@127.0.0.1", "--workspace", "~/baton")
	if code != ExitUsage || !strings.Contains(errOut, "never stores one") || strings.Contains(errOut, "hunter2") {
		t.Fatalf("a password: %d %q", code, errOut)
	}
	if code, _, errOut = machinesCmd("add", "kv", "--host", "box", "--workspace", "~/baton", "--env", "TOKEN=abc"); code != ExitUsage || !strings.Contains(errOut, "only the names") {
		t.Fatalf("a value: %d %q", code, errOut)
	}
	if code, _, errOut = machinesCmd("add", "other", "--host", "box", "--workspace", "~/baton"); code != ExitUsage || !strings.Contains(errOut, "exists") {
		t.Fatalf("a second other: %d %q", code, errOut)
	}
	file, err := os.ReadFile(filepath.Join(os.Getenv("BATON_CONFIG_DIR"), "machines.json"))
	if err != nil || strings.Contains(string(file), "hunter2") || strings.Contains(string(file), "abc") || !strings.Contains(string(file), `"maxWorkers": 3`) {
		t.Fatalf("machines.json: %v\n%s", err, file)
	}

	code, out, _ = machinesCmd("list")
	if code != 0 || !strings.Contains(out, "other") || !strings.Contains(out, sshtest.Alias) || !strings.Contains(out, "BATON_TEST_TOKEN") {
		t.Fatalf("list: %d\n%s", code, out)
	}
	code, out, _ = machinesCmd("list", "--json")
	var listed []view.Machine
	if err := json.Unmarshal([]byte(out), &listed); code != 0 || err != nil || len(listed) != 1 || listed[0].MaxWorkers != 3 || listed[0].ClaudePath != claude {
		t.Fatalf("list --json: %d %v\n%s", code, err, out)
	}

	// The doctor there: every check passes, the tiny request through the
	// reverse forward.
	var dout, derr bytes.Buffer
	if code := DoctorCLI([]string{"--machine", "other"}, &dout, &derr); code != 0 {
		t.Fatalf("doctor --machine: %d\n%s%s", code, dout.String(), derr.String())
	}
	for _, want := range []string{"ok   SSH connection", "ok   Git", "ok   Workspace", "A tiny request", "up to 3 workers on other"} {
		if !strings.Contains(dout.String(), want) {
			t.Errorf("doctor --machine lacks %q:\n%s", want, dout.String())
		}
	}
	if !strings.Contains(requests.String(), "/v1/messages") {
		t.Error("model-sim got no request from the other machine")
	}
	if code, out, _ := machinesCmd("test", "other"); code != 0 || !strings.Contains(out, "up to 3 workers on other") {
		t.Errorf("test: %d\n%s", code, out)
	}
	if code, _, errOut := machinesCmd("test", "nope"); code != ExitError || !strings.Contains(errOut, "the machines are other") {
		t.Errorf("test of an unknown machine: %d %q", code, errOut)
	}

	// An ssh configuration whose known_hosts lacks the server's key: the
	// key is refused with the command that trusts it, by add and test.
	empty := filepath.Join(t.TempDir(), "known_hosts")
	if err := os.WriteFile(empty, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv(service.EnvSSHConfig, s.Config(empty))
	code, out, _ = machinesCmd("test", "other")
	if code != ExitError || !strings.Contains(out, "FAIL SSH connection") || !strings.Contains(out, "ssh-keyscan -p") || !strings.Contains(out, empty) {
		t.Fatalf("test with an unknown host key: %d\n%s", code, out)
	}
	code, _, errOut = machinesCmd("add", "other2", "--host", sshtest.Alias, "--workspace", s.Workspace)
	if code != ExitError || !strings.Contains(errOut, "refuses to connect") || !strings.Contains(errOut, "StrictHostKeyChecking=accept-new") {
		t.Fatalf("add with an unknown host key: %d %q", code, errOut)
	}
	if k, _ := os.ReadFile(empty); len(k) != 0 {
		t.Fatalf("Baton wrote to known_hosts: %s", k)
	}

	for _, name := range []string{"other", "other2"} {
		if code, out, errOut := machinesCmd("remove", name); code != 0 || !strings.Contains(out, "Removed "+name) {
			t.Fatalf("remove %s: %d %q %q", name, code, out, errOut)
		}
	}
	if code, _, _ := machinesCmd("remove", "other"); code != ExitError {
		t.Errorf("remove twice: %d", code)
	}
	if code, out, _ := machinesCmd("list"); code != 0 || !strings.Contains(out, "No machines") {
		t.Errorf("list after remove: %d %q", code, out)
	}
	if left, _ := os.ReadDir(s.Workspace); len(left) != 0 {
		t.Errorf("the doctor left %v in the workspace", left)
	}
}

// TestMachinesUsage: wrong actions, names and flags are usage errors.
func TestMachinesUsage(t *testing.T) {
	t.Setenv("BATON_CONFIG_DIR", t.TempDir())
	for _, args := range [][]string{{}, {"frob"}, {"list", "x"}, {"add"}, {"test"}, {"remove", "a", "b"}, {"list", "--host", "x"}, {"test", "a", "--json"}, {"add", "a", "--json"}} {
		if code, _, _ := machinesCmd(args...); code != ExitUsage {
			t.Errorf("machines %q: exit %d, want %d", args, code, ExitUsage)
		}
	}
	var out, errOut bytes.Buffer
	if code := DoctorCLI([]string{"--machine", "a", "--host", "sim"}, &out, &errOut); code != ExitUsage {
		t.Errorf("doctor --machine --host: %d", code)
	}
}

// taskLine is a task's changes in the branch summary, with the machine
// its worker ran on ("" here).
var taskLine = regexp.MustCompile(`(?m)^  (task_\d+)(?: \(ran on (\S+)\))?: .*docs/\S+\.md \+\d+ -0`)

// TestRunPlacesWorkersOnAMachine is "baton run --machine other" of a
// worktree run with the real CLI here and on the other machine (a real
// sshd, its own user, model-sim through the reverse forward): of the four
// independent tasks that start together, the other machine takes two (its
// max) and two run here; the index, once they merged, runs there too.
// Every branch is merged into the run branch and applied to the user's
// branch.
func TestRunPlacesWorkersOnAMachine(t *testing.T) {
	s, claude, _, sim := otherMachineSim(t)
	bin := claudecodetest.Binary(t)
	t.Setenv("HOME", t.TempDir())
	t.Setenv("ANTHROPIC_BASE_URL", sim.URL())
	t.Setenv("ANTHROPIC_API_KEY", claudecodetest.APIKey)
	t.Setenv("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
	if code, out, errOut := machinesCmd("add", "other", "--host", sshtest.Alias, "--workspace", s.Workspace, "--claude", claude, "--max-workers", "2"); code != 0 {
		t.Fatalf("add: %d\n%s%s", code, out, errOut)
	}
	dir := pyRepo(t)
	// A fourth component: four pages and the index.
	if err := os.MkdirAll(filepath.Join(dir, "web"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "web", "app.py"), []byte("def serve(port):\n    return port\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	testsupport.Git(t, dir, "add", "-A")
	testsupport.Git(t, dir, "commit", "-q", "-m", "web")
	if code, _, errOut := run(t, "", "--host", "claude-code", "--claude", bin, "--template", "documentation", "--message", "Document this project",
		"--cwd", dir, "--yes", "--isolation", "worktree", "--machine", "nope"); code != ExitUsage || !strings.Contains(errOut, "the machines are other") {
		t.Fatalf("an unknown machine: %d %q", code, errOut)
	}
	// A machine whose host key Baton does not know is refused before the
	// run starts, with the command that trusts it.
	empty := filepath.Join(t.TempDir(), "known_hosts")
	if err := os.WriteFile(empty, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv(service.EnvSSHConfig, s.Config(empty))
	if code, stdout, errOut := run(t, "", "--host", "claude-code", "--claude", bin, "--template", "documentation", "--message", "Document this project",
		"--cwd", dir, "--yes", "--isolation", "worktree", "--machine", "other"); code != ExitUsage || !strings.Contains(errOut, "ssh-keyscan") || strings.Contains(stdout, "started") {
		t.Fatalf("an unknown host key: %d %q\n%s", code, errOut, stdout)
	}
	t.Setenv(service.EnvSSHConfig, s.ConfigFile)
	start := time.Now()
	code, stdout, stderr := run(t, "", "--host", "claude-code", "--claude", bin, "--template", "documentation", "--message", "Document this project",
		"--cwd", dir, "--yes", "--isolation", "worktree", "--machine", "other", "--apply")
	if code != ExitOK {
		t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, ExitOK, stdout, stderr)
	}
	t.Logf("the run took %s\n%s", time.Since(start).Round(time.Millisecond), stdout)
	if !strings.Contains(stdout, "Applied: main fast-forwarded") {
		t.Fatalf("not applied:\n%s", stdout)
	}
	// baton show says where the workers ran.
	runID := regexp.MustCompile(`Run (orch_[0-9a-f]+) completed`).FindStringSubmatch(stdout)
	if runID == nil {
		t.Fatalf("no run id:\n%s", stdout)
	}
	var shown, showErr bytes.Buffer
	if code := ShowCLI([]string{runID[1]}, &shown, &showErr); code != 0 || !regexp.MustCompile(`Ran on other machines: task_00[1-4] on other, task_00[1-4] on other, task_005 on other; the others here\.`).MatchString(shown.String()) {
		t.Errorf("baton show: %d\n%s%s", code, shown.String(), showErr.String())
	}
	tasks := taskLine.FindAllStringSubmatch(stdout, -1)
	// The four pages start together: two take the other machine's places,
	// two run here; the index, once they merged, finds a place there
	// again. The main session runs here.
	remote, _ := filepath.Glob(filepath.Join(s.CLIHome, ".claude", "projects", "*", "*.jsonl"))
	here, _ := filepath.Glob(filepath.Join(os.Getenv("HOME"), ".claude", "projects", "*", "*.jsonl"))
	on, pagesThere := 0, 0
	for _, m := range tasks {
		if m[2] == "other" {
			on++
			if m[1] != "task_005" {
				pagesThere++
			}
		}
	}
	if len(tasks) != 5 || len(remote) != 3 || len(here) != 3 || on != 3 || pagesThere != 2 {
		t.Fatalf("%d sessions on the other machine (want 3), %d here (want the main one and two workers) of %d tasks, %d pages written there (want 2):\n%s",
			len(remote), len(here), len(tasks), pagesThere, stdout)
	}
	pages, _ := filepath.Glob(filepath.Join(dir, "docs", "*.md"))
	if len(pages) != len(tasks) {
		t.Fatalf("%d pages in the user's tree for %d tasks: %v", len(pages), len(tasks), pages)
	}
	if got := strings.Fields(testsupport.Git(t, dir, "for-each-ref", "--format=%(refname:short)", "refs/heads/")); len(got) != 1 || got[0] != "main" {
		t.Fatalf("branches left: %v", got)
	}
	// On the machine, the run left no worktree and no branch.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	left, err := s.Run(ctx, "cd "+s.Workspace+" && find worktrees -mindepth 2 -maxdepth 2 | wc -l && git --git-dir=\"$(ls -d repos/*.git)\" for-each-ref refs/heads | wc -l")
	if err != nil || strings.Fields(left)[0] != "0" || strings.Fields(left)[1] != "0" {
		t.Errorf("the run left worktrees and branches on the machine: %q %v", left, err)
	}
}

// stopWhenRunning stops the other machine's sshd once n CLIs run there
// (and half a second more), within 90 seconds; the channel closes then.
func stopWhenRunning(t *testing.T, s *sshtest.Server, claude string, n int) <-chan struct{} {
	t.Helper()
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		deadline := time.Now().Add(90 * time.Second)
		for time.Now().Before(deadline) {
			k := 0
			for _, p := range s.Processes() {
				if strings.Contains(p.Args, claude) && p.Comm != "sh" {
					k++
				}
			}
			if k >= n {
				time.Sleep(500 * time.Millisecond)
				s.Stop()
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
	}()
	return stopped
}

// comesBack starts the other machine's sshd again down after it stopped
// (meanwhile, if not nil, runs as it stops); the channel closes once it
// is back.
func comesBack(s *sshtest.Server, stopped <-chan struct{}, down time.Duration, meanwhile func()) <-chan struct{} {
	back := make(chan struct{})
	go func() {
		defer close(back)
		<-stopped
		if meanwhile != nil {
			meanwhile()
		}
		time.Sleep(down)
		s.Restart()
	}()
	return back
}

// machineRun is "baton run --machine other --apply" of the documentation
// template on a small repository, with the real CLI here; it returns the
// exit code, the output, and the task lines of the summary.
func machineRun(t *testing.T, s *sshtest.Server, claude string, sim *modelsim.Server, dir string, extra ...string) (int, string, string, [][]string) {
	t.Helper()
	bin := claudecodetest.Binary(t)
	t.Setenv("HOME", t.TempDir())
	t.Setenv("ANTHROPIC_BASE_URL", sim.URL())
	t.Setenv("ANTHROPIC_API_KEY", claudecodetest.APIKey)
	t.Setenv("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
	if code, out, errOut := machinesCmd("add", "other", "--host", sshtest.Alias, "--workspace", s.Workspace, "--claude", claude, "--max-workers", "2"); code != 0 {
		t.Fatalf("add: %d\n%s%s", code, out, errOut)
	}
	start := time.Now()
	args := append([]string{"--host", "claude-code", "--claude", bin, "--template", "documentation", "--message", "Document this project",
		"--cwd", dir, "--yes", "--isolation", "worktree", "--machine", "other", "--apply"}, extra...)
	code, stdout, stderr := run(t, "", args...)
	t.Logf("the run took %s\n%s", time.Since(start).Round(time.Millisecond), stdout)
	return code, stdout, stderr, taskLine.FindAllStringSubmatch(stdout, -1)
}

// ranOn counts the tasks of the summary's task lines that ran on machine
// name.
func ranOn(tasks [][]string, name string) int {
	n := 0
	for _, m := range tasks {
		if m[2] == name {
			n++
		}
	}
	return n
}

// setReconnectFor writes the settings' bound of a wait for a lost host
// (and a lost machine).
func setReconnectFor(t *testing.T, seconds int) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(os.Getenv("BATON_CONFIG_DIR"), "settings.json"), []byte(fmt.Sprintf(`{"reconnectForSeconds": %d}`, seconds)), 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestRunRetriesHereWhenAMachineIsGone: the other machine's sshd stops for
// good while its two workers run there (they hang, waiting for the model):
// they wait for the machine as for a lost host (the bound is 3 s here),
// then start again here; the run completes with every task merged and
// applied.
func TestRunRetriesHereWhenAMachineIsGone(t *testing.T) {
	s, claude, _, sim := otherMachineSim(t)
	// Workers there never get their answer.
	if err := sim.SetScenario(s.Workspace, "worker-hangs"); err != nil {
		t.Fatal(err)
	}
	setReconnectFor(t, 3)
	dir := pyRepo(t)
	stopWhenRunning(t, s, claude, 2)
	code, stdout, stderr, tasks := machineRun(t, s, claude, sim, dir)
	if code != ExitOK {
		t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, ExitOK, stdout, stderr)
	}
	pages, _ := filepath.Glob(filepath.Join(dir, "docs", "*.md"))
	for _, m := range tasks {
		if m[2] != "" {
			t.Errorf("%s is said to have run on %s, but the machine was gone", m[1], m[2])
		}
	}
	if len(tasks) != 4 || len(pages) != 4 || !strings.Contains(stdout, "Applied: main fast-forwarded") {
		t.Fatalf("%d tasks, %d pages:\n%s", len(tasks), len(pages), stdout)
	}
	// (The stop may cut the second one's start before its CLI wrote its
	// conversation: that worker waits for the machine as well.)
	if remote, _ := filepath.Glob(filepath.Join(s.CLIHome, ".claude", "projects", "*", "*.jsonl")); len(remote) < 1 || len(remote) > 2 {
		t.Errorf("%d sessions on the other machine, want the 1 or 2 that hung", len(remote))
	}
	// They waited for the machine before they went elsewhere.
	if !strings.Contains(stdout+stderr, "was unreachable for 3s; the worker starts again elsewhere") {
		t.Errorf("no worker waited for the machine:\n%s\n%s", stdout, stderr)
	}
}

// TestRunWaitsForAMachineThatComesBack: the other machine's sshd stops
// while its two workers run there and starts again 4 s later (the bound
// is 60 s): the workers wait for it, go on in their conversations there
// (the CLI's --resume) and complete on the machine; the run completes with
// every task merged and applied.
func TestRunWaitsForAMachineThatComesBack(t *testing.T) {
	s, claude, _, sim := otherMachineSim(t)
	if err := sim.SetScenario(s.Workspace, "worker-hangs"); err != nil {
		t.Fatal(err)
	}
	setReconnectFor(t, 60)
	dir := pyRepo(t)
	// Answered once they are back.
	back := comesBack(s, stopWhenRunning(t, s, claude, 2), 4*time.Second, func() { _ = sim.SetScenario(s.Workspace, "happy") })
	code, stdout, stderr, tasks := machineRun(t, s, claude, sim, dir)
	<-back
	if code != ExitOK {
		t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, ExitOK, stdout, stderr)
	}
	on := ranOn(tasks, "other")
	pages, _ := filepath.Glob(filepath.Join(dir, "docs", "*.md"))
	if len(tasks) != 4 || len(pages) != 4 || on < 2 || !strings.Contains(stdout, "Applied: main fast-forwarded") {
		t.Fatalf("%d tasks (%d on other, want at least the 2 that waited), %d pages:\n%s", len(tasks), on, len(pages), stdout)
	}
	if strings.Contains(stdout+stderr, "starts again elsewhere") {
		t.Errorf("a worker went elsewhere although the machine came back:\n%s", stdout)
	}
	if !strings.Contains(stdout+stderr, "waiting for machine other to come back") {
		t.Errorf("no worker said it waited for the machine:\n%s\n%s", stdout, stderr)
	}
}

// TestStartCutOnAMachineWaitsForIt: the other machine's sshd stops as its
// first worker runs there, before the second worker's session starts
// there (the template spaces the starts by 4 s), and comes back 6 s
// later: that worker's start is refused, and it waits for the machine
// rather than starting there again at every step; it starts there once
// the machine is back, and the run completes with every task merged.
func TestStartCutOnAMachineWaitsForIt(t *testing.T) {
	s, claude, _, sim := otherMachineSim(t)
	if err := sim.SetScenario(s.Workspace, "happy"); err != nil {
		t.Fatal(err)
	}
	setReconnectFor(t, 60)
	templates := filepath.Join(os.Getenv("BATON_CONFIG_DIR"), "templates")
	if err := os.MkdirAll(templates, 0o700); err != nil {
		t.Fatal(err)
	}
	spaced := `{"id": "doc-spaced", "name": "Documentation, spaced starts", "extends": "documentation", "config": {"spawnDelay": 4}}`
	if err := os.WriteFile(filepath.Join(templates, "doc-spaced.json"), []byte(spaced), 0o600); err != nil {
		t.Fatal(err)
	}
	dir := pyRepo(t)
	back := comesBack(s, stopWhenRunning(t, s, claude, 1), 6*time.Second, nil)
	code, stdout, stderr, tasks := machineRun(t, s, claude, sim, dir, "--template", "doc-spaced")
	<-back
	if code != ExitOK {
		t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, ExitOK, stdout, stderr)
	}
	pages, _ := filepath.Glob(filepath.Join(dir, "docs", "*.md"))
	if len(tasks) != 4 || len(pages) != 4 || ranOn(tasks, "other") < 2 || !strings.Contains(stdout, "Applied: main fast-forwarded") {
		t.Fatalf("%d tasks (%d on other, want at least the 2 placed there), %d pages:\n%s", len(tasks), ranOn(tasks, "other"), len(pages), stdout)
	}
	if !strings.Contains(stdout+stderr, "waiting for machine other to come back") || strings.Contains(stdout+stderr, "starts again elsewhere") {
		t.Errorf("the workers on the machine did not wait for it:\n%s\n%s", stdout, stderr)
	}
	// One start cut, not one per step while the machine was away.
	m := regexp.MustCompile(`retries (\d+)`).FindStringSubmatch(stdout)
	if m == nil {
		t.Fatalf("no final report:\n%s", stdout)
	}
	if n, _ := strconv.Atoi(m[1]); n > 2 {
		t.Errorf("%d retries while the machine was away for 6 s, want at most the cut start's\n%s", n, stdout)
	}
}

// TestResumeTakesUpWorkersOnAMachine: "baton run --machine other" is
// killed (SIGKILL) while its workers run on the other machine; "baton run
// --resume" takes them up there (their sessions on that machine's host,
// their branches fetched from there) and the run completes with every
// task merged.
func TestResumeTakesUpWorkersOnAMachine(t *testing.T) {
	s, claude, _, sim := otherMachineSim(t)
	// Workers there are slow enough to be killed mid-turn.
	if err := sim.SetScenario(s.Workspace, "slow delay=120"); err != nil {
		t.Fatal(err)
	}
	cli := claudecodetest.Binary(t)
	bin := buildBaton(t)
	if code, out, errOut := machinesCmd("add", "other", "--host", sshtest.Alias, "--workspace", s.Workspace, "--claude", claude, "--max-workers", "2"); code != 0 {
		t.Fatalf("add: %d\n%s%s", code, out, errOut)
	}
	env := append(claudecodetest.Env(t.TempDir(), sim.URL()), "BATON_CONFIG_DIR="+os.Getenv("BATON_CONFIG_DIR"),
		service.EnvSSHConfig+"="+os.Getenv(service.EnvSSHConfig), service.EnvMachineEnv+"="+os.Getenv(service.EnvMachineEnv))
	dir := pyRepo(t)
	// A bound for a stuck run, not a measure: on a loaded machine the two runs took over 3 minutes.
	ctx, cancel := context.WithTimeout(context.Background(), 6*time.Minute)
	defer cancel()
	first := exec.CommandContext(ctx, bin, "run", "--host", "claude-code", "--claude", cli, "--template", "documentation", "--message", "Document this project",
		"--cwd", dir, "--yes", "--isolation", "worktree", "--machine", "other")
	first.Env = env
	out, err := first.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	first.Stderr = io.Discard
	if err := first.Start(); err != nil {
		t.Fatal(err)
	}
	lines := make(chan string, 256)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	runID := ""
	killed := false
	for !killed {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatal("the first run ended before its workers ran on the other machine")
			}
			if m := runIDPattern.FindStringSubmatch(l); m != nil && runID == "" {
				runID = m[1]
			}
		case <-time.After(100 * time.Millisecond):
		case <-ctx.Done():
			t.Fatal("no worker ran on the other machine")
		}
		n := 0
		for _, p := range s.Processes() {
			if strings.Contains(p.Args, claude) && p.Comm != "sh" {
				n++
			}
		}
		if n >= 2 && runID != "" {
			_ = first.Process.Signal(syscall.SIGKILL)
			killed = true
		}
	}
	_ = first.Wait()

	resume := exec.CommandContext(ctx, bin, "run", "--resume", runID, "--host", "claude-code", "--claude", cli, "--yes", "--apply")
	resume.Env = env
	res, err := resume.CombinedOutput()
	t.Logf("resumed run:\n%s", res)
	if err != nil || !strings.Contains(string(res), "Applied: main fast-forwarded") {
		t.Fatalf("resume %s: %v", runID, err)
	}
	tasks := taskLine.FindAllStringSubmatch(string(res), -1)
	on := ranOn(tasks, "other")
	pages, _ := filepath.Glob(filepath.Join(dir, "docs", "*.md"))
	if len(tasks) != 4 || len(pages) != 4 || on < 2 {
		t.Fatalf("%d tasks (%d ran on other), %d pages", len(tasks), on, len(pages))
	}
}

// TestRunAnswersAWorkerOnAMachine: a worker on the other machine asks
// permission for a Bash command and another asks a question there (the
// default permission mode, model-sim's needs-permission and asks-question
// scenarios for the tasks the machine takes); both reach the terminal as
// a worker's here do, and the answers go back to the CLIs there: the
// allowed command ran in the worktree there (its file comes back with the
// branch), and the question's answer went into the call.
func TestRunAnswersAWorkerOnAMachine(t *testing.T) {
	s, claude, log, sim := otherMachineSim(t)
	// The first two tasks take the machine's two places.
	if err := sim.SetScenario("/task_001", "needs-permission"); err != nil {
		t.Fatal(err)
	}
	if err := sim.SetScenario("/task_002", "asks-question"); err != nil {
		t.Fatal(err)
	}
	bin := claudecodetest.Binary(t)
	t.Setenv("HOME", t.TempDir())
	t.Setenv("ANTHROPIC_BASE_URL", sim.URL())
	t.Setenv("ANTHROPIC_API_KEY", claudecodetest.APIKey)
	t.Setenv("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
	if code, out, errOut := machinesCmd("add", "other", "--host", sshtest.Alias, "--workspace", s.Workspace, "--claude", claude, "--max-workers", "2"); code != 0 {
		t.Fatalf("add: %d\n%s%s", code, out, errOut)
	}
	dir := pyRepo(t)
	// Every prompt (the pages' writes too) is allowed once; the question
	// is answered "o" in the user's own words: the order does not matter.
	code, stdout, stderr := run(t, strings.Repeat("o\n", 40), "--host", "claude-code", "--claude", bin, "--template", "documentation",
		"--message", "Document this project", "--cwd", dir, "--yes", "--isolation", "worktree", "--machine", "other",
		"--permission-mode", "default", "--apply")
	t.Logf("%s", stdout)
	if code != ExitOK {
		t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, ExitOK, stdout, stderr)
	}
	ran := map[string]string{}
	for _, m := range taskLine.FindAllStringSubmatch(stdout, -1) {
		ran[m[1]] = m[2]
	}
	if ran["task_001"] != "other" || ran["task_002"] != "other" {
		t.Fatalf("task_001 and task_002 did not run on the other machine: %v", ran)
	}
	if !strings.Contains(stdout, "task_001 asks permission: Bash touch .baton-model-sim") {
		t.Errorf("the permission prompt of the worker there was not asked:\n%s", stdout)
	}
	if !strings.Contains(stdout, "task_002 asks: Which part should I start with?") {
		t.Errorf("the question of the worker there was not asked:\n%s", stdout)
	}
	// The allowed command ran there, in task_001's worktree: its file came
	// back with the branch and was applied.
	if _, err := os.Stat(filepath.Join(dir, ".baton-model-sim")); err != nil {
		t.Errorf("the allowed command's file is not in the applied tree: %v", err)
	}
	// The answer reached the CLI there, in the AskUserQuestion call's
	// result that it sent to the model.
	if !strings.Contains(log.String(), `\"o\"`) {
		t.Errorf("model-sim saw no answer \"o\" in a request")
	}
	var shown, showErr bytes.Buffer
	if code := ShowCLI([]string{runIDPattern.FindStringSubmatch(stdout)[1]}, &shown, &showErr); code != 0 ||
		!regexp.MustCompile(`(?m)^  \d\d:\d\d:\d\d +task_001 +Bash +touch \.baton-model-sim +allow +you$`).MatchString(shown.String()) {
		t.Errorf("baton show does not log the answer to the worker there:\n%s%s", shown.String(), showErr.String())
	}
	// The files of a worker there are named in its folder there, as a
	// worker's here are in its own.
	if regexp.MustCompile(`(?m)^ +/\S+/docs/(overview|src)\.md \(task_00[12]\)$`).MatchString(shown.String()) {
		t.Errorf("baton show names the files of the workers there with their paths there:\n%s", shown.String())
	}
}

// TestRunInASubfolderOnAMachine: a worktree run in a subfolder of its
// repository places workers on the other machine, where each works in the
// same subfolder of its worktree there, as the workers here do: every
// page lands in the subfolder's docs, and the CLIs there ran in it.
func TestRunInASubfolderOnAMachine(t *testing.T) {
	s, claude, _, sim := otherMachineSim(t)
	repo := testsupport.GitRepo(t, filepath.Join(t.TempDir(), "repo"), map[string]string{
		"README.md":          "# monorepo\n",
		"shop/README.md":     "# shop\n\nA tiny shop.\n",
		"shop/src/cart.py":   "def total(prices):\n    return sum(prices)\n",
		"shop/tools/load.py": "def load(path):\n    return open(path).read()\n",
		"other/lib/thing.py": "def thing():\n    return 1\n",
	})
	dir := filepath.Join(repo, "shop")
	code, stdout, stderr, tasks := machineRun(t, s, claude, sim, dir)
	if code != ExitOK {
		t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, ExitOK, stdout, stderr)
	}
	on := ranOn(tasks, "other")
	pages, _ := filepath.Glob(filepath.Join(dir, "docs", "*.md"))
	if len(tasks) != 4 || on < 2 || len(pages) != 4 {
		t.Fatalf("%d tasks (%d on other), %d pages in shop/docs:\n%s", len(tasks), on, len(pages), stdout)
	}
	if top, _ := filepath.Glob(filepath.Join(repo, "docs", "*")); len(top) != 0 {
		t.Errorf("pages at the top of the repository: %v", top)
	}
	// The CLIs there worked in the subfolder of their worktrees (the CLI
	// names a conversation's folder after its working folder).
	conversations, _ := filepath.Glob(filepath.Join(s.CLIHome, ".claude", "projects", "*", "*.jsonl"))
	if len(conversations) != on {
		t.Fatalf("%d conversations on the other machine for %d workers there: %v", len(conversations), on, conversations)
	}
	for _, c := range conversations {
		if folder := filepath.Base(filepath.Dir(c)); !strings.HasSuffix(folder, "-shop") {
			t.Errorf("a CLI there worked in %s, not in the shop subfolder of its worktree", folder)
		}
	}
}

// TestRunWaitsForALimitOfAWorkerOnAMachine: the model rate-limits a worker
// there (its CLI gives up after one retry): the run waits for the limit as
// for a worker here, then the worker goes on there and the run completes,
// merged and applied.
func TestRunWaitsForALimitOfAWorkerOnAMachine(t *testing.T) {
	s, claude, _, sim := otherMachineSim(t)
	if err := sim.SetScenario("/task_001", "rate-limited times=4 after=1"); err != nil {
		t.Fatal(err)
	}
	t.Setenv(service.EnvMachineEnv, os.Getenv(service.EnvMachineEnv)+"\nCLAUDE_CODE_MAX_RETRIES=1")
	bin := claudecodetest.Binary(t)
	t.Setenv("HOME", t.TempDir())
	t.Setenv("ANTHROPIC_BASE_URL", sim.URL())
	t.Setenv("ANTHROPIC_API_KEY", claudecodetest.APIKey)
	t.Setenv("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
	if code, out, errOut := machinesCmd("add", "other", "--host", sshtest.Alias, "--workspace", s.Workspace, "--claude", claude, "--max-workers", "2"); code != 0 {
		t.Fatalf("add: %d\n%s%s", code, out, errOut)
	}
	dir := pyRepo(t)
	code, stdout, stderr := run(t, "", "--host", "claude-code", "--claude", bin, "--template", "documentation",
		"--message", "Document this project", "--cwd", dir, "--yes", "--isolation", "worktree", "--machine", "other", "--apply")
	t.Logf("%s", stdout)
	if code != ExitOK {
		t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, ExitOK, stdout, stderr)
	}
	ran := map[string]string{}
	for _, m := range taskLine.FindAllStringSubmatch(stdout, -1) {
		ran[m[1]] = m[2]
	}
	if ran["task_001"] != "other" {
		t.Fatalf("task_001 did not run on the other machine: %v", ran)
	}
	if !strings.Contains(stdout, "waiting for the limit") || !strings.Contains(stdout, "the limit has reset and the run resumes") {
		t.Errorf("the run did not wait for the limit of the worker there:\n%s", stdout)
	}
	// A limit is a wait, not a failure: no retry.
	if !strings.Contains(stdout, "0 failed, 0 skipped, 0 not run of 4; iterations 0 (QA rounds 0, retries 0") {
		t.Errorf("the limit was counted as a failure or retry:\n%s", stdout)
	}
	if !strings.Contains(stdout, "Applied: main fast-forwarded") {
		t.Errorf("the run was not applied:\n%s", stdout)
	}
}
