package console

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/baton-app/baton/backend/testsupport"
	"github.com/baton-app/baton/backend/view"
)

const hostile = "Docs\x1b]0;pwned\x07\x1b[2J\x1b[H\r\u202eevil\u009b31m"

// Text from agents is stripped of control characters before it is printed:
// no escape sequence reaches the terminal.
func TestAgentTextCannotControlTheTerminal(t *testing.T) {
	var out bytes.Buffer
	display := newProgress(&out)
	display.event(view.Event{Name: view.EventWorkerFailed, TaskID: "task_001", Message: hostile,
		Worker: &view.Worker{TaskID: "task_001", Status: "failed", CurrentAction: hostile}})
	display.event(view.Event{Name: view.EventError, Message: hostile})
	var sw bytes.Buffer
	if _, err := safe(&sw).Write([]byte("title: " + hostile + "\n")); err != nil {
		t.Fatal(err)
	}
	for _, got := range []string{out.String(), sw.String()} {
		if strings.ContainsAny(got, "\x1b\x07\r\u202e\u009b") {
			t.Errorf("control characters were printed: %q", got)
		}
		if !strings.Contains(got, "Docs]0;pwned[2J[Hevil31m") {
			t.Errorf("the visible text was lost: %q", got)
		}
	}
	if line("a\nb\tc") != "a b c" {
		t.Errorf("line = %q", line("a\nb\tc"))
	}
}

// --cwd must be a non-empty path to a folder that exists; a file has its own
// sentence.
func TestProjectFolderChecks(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f.txt")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ cwd, want string }{
		{"", "--cwd is empty"},
		{"  ", "--cwd is empty"},
		{filepath.Join(dir, "missing"), "does not exist"},
		{file, "is a file, not a folder"},
	} {
		if _, err := projectFolder(tc.cwd); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("projectFolder(%q) = %v, want %q", tc.cwd, err, tc.want)
		}
		t.Setenv("BATON_CONFIG_DIR", t.TempDir())
		code, _, stderr := run(t, "", "--template", "documentation", "--message", "x", "--cwd", tc.cwd)
		if code != ExitError || !strings.Contains(stderr, tc.want) {
			t.Errorf("baton run --cwd %q: exit %d, %q; want %q", tc.cwd, code, stderr, tc.want)
		}
	}
	if got, err := projectFolder(dir); err != nil || got != dir {
		t.Errorf("projectFolder(%s) = %q, %v", dir, got, err)
	}
}

// A settings file Baton cannot use is named on stderr with what is wrong,
// and "baton run" and "baton doctor" stop with exit 2 unless a host is
// given on the command line.
func TestBrokenSettingsStopRunAndDoctor(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("BATON_CONFIG_DIR", dir)
	if err := os.WriteFile(filepath.Join(dir, "settings.json"), []byte(`{"host": "desktop",`), 0o600); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := run(t, "", "--template", "documentation", "--message", "x", "--cwd", sample(t))
	if code != ExitSettings || !strings.Contains(stderr, "settings.json") || !strings.Contains(stderr, "not valid JSON") || !strings.Contains(stderr, "--host") {
		t.Fatalf("baton run with a broken settings file: exit %d, stderr %q", code, stderr)
	}
	var out, errOut bytes.Buffer
	if code := DoctorCLI(nil, &out, &errOut); code != ExitSettings || !strings.Contains(errOut.String(), "settings.json") {
		t.Fatalf("baton doctor with a broken settings file: exit %d, stderr %q", code, errOut.String())
	}
	// With --host the run goes on (here it stops later: the refused --cdp).
	code, _, stderr = run(t, "", "--template", "documentation", "--message", "x", "--cwd", sample(t), "--cdp", "http://192.0.2.1:9222")
	if code == ExitSettings || !strings.Contains(stderr, "settings.json") {
		t.Fatalf("baton run --cdp with a broken settings file: exit %d, stderr %q", code, stderr)
	}
}

// syncBuffer is a bytes.Buffer safe for a writer and a reader goroutine.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// SIGTERM while a question waits for a line ends the command at once with
// exit 143, and the run is paused, not lost.
func TestSignalCancelsAWaitingQuestion(t *testing.T) {
	testsupport.NeedChromium(t)
	t.Setenv("BATON_CONFIG_DIR", t.TempDir())
	project := t.TempDir()
	if err := os.CopyFS(project, os.DirFS(sample(t))); err != nil {
		t.Fatal(err)
	}
	stdin, never := io.Pipe() // a terminal nobody types into
	defer never.Close()
	var stdout, stderr syncBuffer
	done := make(chan int, 1)
	go func() {
		done <- RunCLI([]string{"--template", "sparc", "--message", "Specify the health endpoint", "--scenario", "clarification",
			"--cwd", project, "--yes", "--host", "sim", "--sim-speed", "50"}, stdin, &stdout, &stderr)
	}()
	deadline := time.Now().Add(90 * time.Second)
	for !strings.Contains(stdout.String(), "Your answer (Enter leaves the question open): ") {
		select {
		case code := <-done:
			t.Fatalf("the run ended (%d) before asking:\n%s\n%s", code, stdout.String(), stderr.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("no question was asked:\n%s\n%s", stdout.String(), stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := syscall.Kill(os.Getpid(), syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case code := <-done:
		if code != ExitTerminated || !strings.Contains(stdout.String(), "Paused ") {
			t.Fatalf("exit %d after SIGTERM:\n%s\n%s", code, stdout.String(), stderr.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("SIGTERM did not end the waiting question:\n%s", stdout.String())
	}
	m := runIDPattern.FindStringSubmatch(stdout.String())
	if m == nil {
		t.Fatalf("no run id:\n%s", stdout.String())
	}
	var out, errOut bytes.Buffer
	if code := ShowCLI([]string{m[1]}, &out, &errOut); code != ExitOK || !strings.Contains(out.String(), "Status:  paused") {
		t.Fatalf("show %s: exit %d\n%s%s", m[1], code, out.String(), errOut.String())
	}
}

// A worker that waits for memory says so on the terminal, with how much is
// free.
func TestMemoryWaitLine(t *testing.T) {
	var out bytes.Buffer
	display := newProgress(&out)
	display.event(view.Event{Name: view.EventWorkerMemory, TaskID: "task_007", Message: "waiting for memory: 412 MB free",
		Worker: &view.Worker{TaskID: "task_007", Status: "pending", CurrentAction: "waiting for memory: 412 MB free"}})
	if !strings.Contains(out.String(), "task_007 waiting for memory: 412 MB free") {
		t.Errorf("terminal: %q", out.String())
	}
}

// A worker whose start on a machine was cut says, as it goes back to
// pending, that it waits for the machine; other retries say only that.
func TestMachineWaitRetryLine(t *testing.T) {
	var out bytes.Buffer
	display := newProgress(&out)
	const wait = "waiting for machine other to come back (lost at 10:00:00; the worker runs elsewhere at 10:02:00)"
	display.event(view.Event{Name: view.EventWorkerRetrying, TaskID: "task_002", Message: wait,
		Worker: &view.Worker{TaskID: "task_002", Status: "pending", CurrentAction: wait}})
	display.event(view.Event{Name: view.EventWorkerRetrying, TaskID: "task_003", Message: "no completion block",
		Worker: &view.Worker{TaskID: "task_003", Status: "pending"}})
	if s := out.String(); !strings.Contains(s, "task_002 retrying: "+wait) || strings.Contains(s, "no completion block") || !strings.Contains(s, "task_003 retrying") {
		t.Errorf("terminal: %q", s)
	}
}
