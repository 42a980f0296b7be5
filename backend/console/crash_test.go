package console

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/baton-app/baton/backend/chrome"
	"github.com/baton-app/baton/backend/claude"
	"github.com/baton-app/baton/backend/engine"
	"github.com/baton-app/baton/backend/testsupport"
)

// buildBaton compiles the baton command (its headless subcommands need no
// WebKit) into a temporary folder.
func buildBaton(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "baton")
	cmd := exec.Command("go", "build", "-o", bin, "github.com/baton-app/baton")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build baton: %v\n%s", err, out)
	}
	return bin
}

// startSim runs "baton sim" as its own process, as Claude Desktop would be,
// and returns its CDP endpoint; the test's cleanup interrupts it.
func startSim(t *testing.T, bin string, flags ...string) string {
	t.Helper()
	ep, _, exited, stderr := trySim(t, bin, sim{port: "0", flags: flags})
	if exited {
		t.Fatalf("baton sim ended before it printed its endpoint:\n%s", stderr)
	}
	return ep
}

// sim is how trySim starts "baton sim": on port (a number; "0": any free
// one) with flags; group: in a process group of its own, which kill ends at
// once with everything it started (otherwise kill interrupts it and waits
// up to 20 s before it kills it).
type sim struct {
	port  string
	group bool
	flags []string
}

// trySim starts "baton sim" as o says and waits for its endpoint; exited
// is true when it ended before printing it (stderr says why). The test's
// cleanup calls kill.
func trySim(t *testing.T, bin string, o sim) (endpoint string, kill func(), exited bool, stderr string) {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"sim", "--port", o.port, "--speed", "3"}, o.flags...)...)
	if o.group {
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var errOut bytes.Buffer
	cmd.Stderr = &errOut
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waited := make(chan struct{})
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if ep, ok := strings.CutPrefix(sc.Text(), "CDP endpoint: "); ok {
				found <- ep
			}
		}
		_ = cmd.Wait()
		close(waited)
	}()
	kill = func() {
		if o.group {
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-waited
			return
		}
		_ = cmd.Process.Signal(os.Interrupt)
		select {
		case <-waited:
		case <-time.After(20 * time.Second):
			_ = cmd.Process.Kill()
			<-waited
		}
	}
	t.Cleanup(kill)
	select {
	case ep := <-found:
		return ep, kill, false, ""
	case <-waited:
		return "", kill, true, errOut.String()
	case <-time.After(60 * time.Second):
		t.Fatal("baton sim did not print its endpoint within a minute")
	}
	return "", kill, false, ""
}

var startedLine = regexp.MustCompile(`task_\d+ started`)

// TestCrashAndResume kills "baton run" with SIGKILL in the middle of the
// worker phase and resumes it with --resume; every task must end completed
// exactly once, with no second worker session for any task.
func TestCrashAndResume(t *testing.T) {
	testsupport.NeedChromium(t)
	bin := buildBaton(t)
	endpoint := startSim(t, bin)

	const rounds = 10
	for round := 1; round <= rounds; round++ {
		// A folder of its own each round: the pages an earlier round wrote
		// would already be there, and a worker that finds its page as it
		// wants it writes nothing, which Baton reports as an output not
		// written.
		project := freshSample(t)
		config := t.TempDir()
		env := append(os.Environ(), "BATON_CONFIG_DIR="+config)

		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		first := exec.CommandContext(ctx, bin, "run", "--host", "desktop", "--cdp", endpoint, "--template", "documentation",
			"--cwd", project, "--message", fmt.Sprintf("Document the sample project (round %d)", round), "--yes")
		first.Env = env
		runID, killed := killAtFirstWorker(t, first)
		cancel()
		if runID == "" || !killed {
			t.Fatalf("round %d: the run did not reach the worker phase before it ended (run %q)", round, runID)
		}

		ctx, cancel = context.WithTimeout(context.Background(), 2*time.Minute)
		resume := exec.CommandContext(ctx, bin, "run", "--resume", runID, "--host", "desktop", "--cdp", endpoint, "--yes")
		resume.Env = env
		res, err := resume.CombinedOutput()
		cancel()
		if err != nil {
			t.Fatalf("round %d: resume %s failed: %v\n%s", round, runID, err, res)
		}
		if !strings.Contains(string(res), "completed: ") || mentionsFailure(string(res)) {
			t.Fatalf("round %d: the resumed run did not complete every task:\n%s", round, res)
		}
		assertOneWorkerPerTask(t, endpoint, runID)
	}
}

// assertOneWorkerPerTask reads the simulator's sessions: each task of the run
// has exactly one worker session.
func assertOneWorkerPerTask(t *testing.T, endpoint, runID string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	h, err := claude.Dial(ctx, chrome.Config{Endpoint: endpoint}, claude.Options{ProbeOnly: true})
	if err != nil {
		t.Fatalf("attach to the simulator: %v", err)
	}
	defer h.Close(context.Background())
	list, err := h.List(ctx, true)
	if err != nil {
		t.Fatalf("list the simulator's sessions: %v", err)
	}
	perTask := map[string]int{}
	one, _ := engine.WorkerSessionID(runID, "x")
	prefix := strings.TrimSuffix(string(one), "x")
	for _, s := range list {
		// A retry's session is named task_001-r1: it counts for task_001.
		if rest, ok := strings.CutPrefix(string(s.ID), prefix); ok {
			task, _, _ := strings.Cut(rest, "-r")
			perTask[task]++
		}
	}
	if len(perTask) == 0 {
		t.Fatalf("run %s has no worker sessions on the simulator", runID)
	}
	for task, n := range perTask {
		if n != 1 {
			t.Errorf("run %s: task %s has %d worker sessions, want exactly 1", runID, task, n)
		}
	}
}

// TestInterruptPausesAndResumes sends Ctrl-C (SIGINT) to "baton run" in the
// worker phase: it pauses the run and exits 130; --resume finishes it.
func TestInterruptPausesAndResumes(t *testing.T) {
	testsupport.NeedChromium(t)
	bin := buildBaton(t)
	endpoint := startSim(t, bin)
	env := append(os.Environ(), "BATON_CONFIG_DIR="+t.TempDir())

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	first := exec.CommandContext(ctx, bin, "run", "--host", "desktop", "--cdp", endpoint, "--template", "documentation",
		"--cwd", sample(t), "--message", "Document the sample project", "--yes")
	first.Env = env
	out, err := first.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	first.Stderr = io.Discard
	if err := first.Start(); err != nil {
		t.Fatal(err)
	}
	var runID string
	var rest strings.Builder
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		line := sc.Text()
		if m := runIDPattern.FindStringSubmatch(line); m != nil && runID == "" {
			runID = m[1]
		}
		if startedLine.MatchString(line) {
			_ = first.Process.Signal(os.Interrupt)
			break
		}
	}
	for sc.Scan() {
		rest.WriteString(sc.Text() + "\n")
	}
	err = first.Wait()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != ExitPaused {
		t.Fatalf("Ctrl-C: %v, want exit code %d; output after the signal:\n%s", err, ExitPaused, rest.String())
	}
	if !strings.Contains(rest.String(), "Paused "+runID+". Continue it with: baton run --resume "+runID) {
		t.Fatalf("Ctrl-C did not say how to continue; output:\n%s", rest.String())
	}

	var history bytes.Buffer
	show := exec.Command(bin, "show", runID)
	show.Env, show.Stdout = env, &history
	if err := show.Run(); err != nil || !strings.Contains(history.String(), "Status:  paused") {
		t.Fatalf("the interrupted run is not stored as paused (%v):\n%s", err, history.String())
	}

	resume := exec.CommandContext(ctx, bin, "run", "--resume", runID, "--host", "desktop", "--cdp", endpoint, "--yes")
	resume.Env = env
	res, err := resume.CombinedOutput()
	if err != nil || !strings.Contains(string(res), "completed: ") {
		t.Fatalf("resume %s: %v\n%s", runID, err, res)
	}
	assertOneWorkerPerTask(t, endpoint, runID)
}

// killAtFirstWorker starts a "baton run" command, reads its output until a
// worker has started, kills it with SIGKILL, and returns the run's id and
// whether it was killed (false when the output ended first).
func killAtFirstWorker(t *testing.T, cmd *exec.Cmd) (runID string, killed bool) {
	t.Helper()
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = io.Discard
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		line := sc.Text()
		if m := runIDPattern.FindStringSubmatch(line); m != nil && runID == "" {
			runID = m[1]
		}
		if startedLine.MatchString(line) {
			_ = cmd.Process.Signal(syscall.SIGKILL)
			killed = true
			break
		}
	}
	_ = cmd.Wait()
	return runID, killed
}

// mentionsFailure is whether the output of "baton run" says something
// failed, apart from the final report's count line ("0 failed").
func mentionsFailure(out string) bool {
	for _, l := range strings.Split(out, "\n") {
		if !strings.HasPrefix(l, "Final report: ") && strings.Contains(l, "failed") {
			return true
		}
	}
	return false
}
