//go:build unix

package checks

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestRunExitCodesAndTail(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	r := Runner{TailBytes: 64}
	tests := []struct {
		name, command string
		status        Status
		code          int
		tail          string
	}{
		{"passes", "echo hello", Passed, 0, "hello\n"},
		{"fails", "echo broken >&2; exit 3", Failed, 3, "broken\n"},
		{"missing", "no-such-program-baton-test", Failed, 127, ""},
		{"long output keeps its end", "for i in $(seq 1 200); do echo line $i; done", Passed, 0, "line 200\n"},
		{"runs in the folder", "test -f here.txt", Passed, 0, ""},
	}
	if err := os.WriteFile(filepath.Join(dir, "here.txt"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			res := r.Run(context.Background(), dir, Check{Name: tc.name, Command: tc.command})
			if res.Status != tc.status || res.ExitCode != tc.code {
				t.Fatalf("status %s exit %d, want %s exit %d (%s)", res.Status, res.ExitCode, tc.status, tc.code, res.Message)
			}
			if !strings.HasSuffix(res.Tail, tc.tail) {
				t.Errorf("tail %q does not end with %q", res.Tail, tc.tail)
			}
			if len(res.Tail) > 64 {
				t.Errorf("tail keeps %d bytes, want at most 64", len(res.Tail))
			}
			if tc.name == "long output keeps its end" && !strings.HasPrefix(res.Tail, "line ") {
				t.Errorf("a cut tail starts at a line: %q", res.Tail)
			}
			if tc.code == 127 && !strings.Contains(res.Message, "not found") {
				t.Errorf("message %q", res.Message)
			}
		})
	}
}

// TestRunEndsAHangingCheckAndWhatItStarted: a check that hangs, with a
// child of its own holding its output open, is ended at its limit with a
// sentence, and the child is gone too.
func TestRunEndsAHangingCheckAndWhatItStarted(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "child.pid")
	r := Runner{Timeout: 300 * time.Millisecond, Grace: 500 * time.Millisecond}
	start := time.Now()
	res := r.Run(context.Background(), dir, Check{Name: "hang", Command: "sleep 60 & echo $! > child.pid; echo started; wait"})
	if took := time.Since(start); took > 5*time.Second {
		t.Fatalf("the hanging check took %s to end", took)
	}
	if res.Status != TimedOut {
		t.Fatalf("status %s, want timeout (%+v)", res.Status, res)
	}
	if !strings.Contains(res.Message, "did not finish within 300ms") || !strings.Contains(res.Message, "ended it") {
		t.Errorf("message %q", res.Message)
	}
	if !strings.Contains(res.Tail, "started") {
		t.Errorf("tail %q lost what the check wrote before its end", res.Tail)
	}
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(3 * time.Second)
	for {
		if err := syscall.Kill(pid, 0); err != nil || zombie(pid) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the check's child %d still runs after the check was ended", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func zombie(pid int) bool {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	return err != nil || strings.Contains(string(b), ") Z ")
}

func TestRunRefusesWhatCannotRun(t *testing.T) {
	t.Parallel()
	r := Runner{}
	if res := r.Run(context.Background(), filepath.Join(t.TempDir(), "gone"), Check{Command: "true"}); res.Status != NotRun || !strings.Contains(res.Message, "not there") {
		t.Errorf("a missing folder: %+v", res)
	}
	if res := r.Run(context.Background(), t.TempDir(), Check{Command: "  "}); res.Status != NotRun {
		t.Errorf("an empty command: %+v", res)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if got := r.RunAll(ctx, t.TempDir(), []Check{{Command: "true"}}); len(got) != 0 {
		t.Errorf("a stopped run ran %d checks", len(got))
	}
}

func TestDetect(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		files    map[string]string
		commands string
		why      string
	}{
		{"nothing", map[string]string{"README.md": "# x"}, "", ""},
		{"go module", map[string]string{"go.mod": "module x\n"}, "go build ./..., go test ./...", "go.mod"},
		{"makefile test target wins", map[string]string{"go.mod": "module x\n", "Makefile": "build:\n\tgo build\ntest: build\n\tgo test ./...\n"}, "make test", "the Makefile's test target"},
		{"makefile without test", map[string]string{"Makefile": "TEST := 1\nbuild:\n\ttrue\n"}, "", ""},
		{"npm test", map[string]string{"package.json": `{"scripts": {"test": "vitest run"}}`}, "npm test", "package.json's test script"},
		{"npm placeholder", map[string]string{"package.json": `{"scripts": {"test": "echo \"Error: no test specified\" && exit 1"}}`}, "", ""},
		{"cargo", map[string]string{"Cargo.toml": "[package]\nname = \"x\"\n"}, "cargo test", "Cargo.toml"},
		{"pytest config", map[string]string{"pytest.ini": "[pytest]\n"}, "python3 -m pytest -q", "pytest.ini"},
		{"pyproject pytest", map[string]string{"pyproject.toml": "[tool.pytest.ini_options]\n"}, "python3 -m pytest -q", "pyproject.toml's pytest section"},
		{"several", map[string]string{"go.mod": "module x\n", "Cargo.toml": "[package]\n"}, "go build ./..., go test ./..., cargo test", "go.mod, Cargo.toml"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			for name, body := range tc.files {
				if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			f := Detect(dir)
			if got := Commands(f.Checks); got != tc.commands {
				t.Errorf("checks %q, want %q", got, tc.commands)
			}
			if got := strings.Join(f.Why, ", "); got != tc.why {
				t.Errorf("why %q, want %q", got, tc.why)
			}
			if tc.commands == "" && f.Note() != "" {
				t.Errorf("nothing found, yet the note says %q", f.Note())
			}
			if tc.commands != "" && !strings.Contains(f.Note(), tc.commands) {
				t.Errorf("note %q does not name %q", f.Note(), tc.commands)
			}
		})
	}
}

func TestDetectPythonTestFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "test_cart.py"), []byte("import unittest\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f := Detect(dir)
	want := "python3 -m unittest discover -q"
	if hasPytest() {
		want = "python3 -m pytest -q"
	}
	if got := Commands(f.Checks); got != want {
		t.Errorf("checks %q, want %q", got, want)
	}
}

func TestFromCommandsNames(t *testing.T) {
	t.Parallel()
	got := FromCommands([]string{"go test ./...", " ", "npm test", "make", "./scripts/check.sh --fast", "cargo test --all"})
	var names []string
	for _, c := range got {
		names = append(names, c.Name)
	}
	if strings.Join(names, "|") != "go test|npm test|make|check.sh|cargo test" {
		t.Errorf("names %q", names)
	}
}

func TestJudge(t *testing.T) {
	t.Parallel()
	pass := func(cmd string) Result { return Result{Check: Check{Command: cmd}, Status: Passed} }
	fail := func(cmd string) Result { return Result{Check: Check{Command: cmd}, Status: Failed, ExitCode: 1} }
	baseline := []Result{pass("go build ./..."), fail("go test ./..."), {Check: Check{Command: "slow"}, Status: TimedOut}}
	tests := []struct {
		after Result
		want  Verdict
	}{
		{pass("go build ./..."), Passes},
		{fail("go build ./..."), Broken},
		{fail("go test ./..."), PreExisting},
		{pass("go test ./..."), Fixed},
		{fail("slow"), PreExisting},
		{fail("npm test"), NewFailure},
		{pass("npm test"), Passes},
	}
	for _, tc := range tests {
		if got := Judge(baseline, tc.after); got != tc.want {
			t.Errorf("%s %s: %s, want %s", tc.after.Command, tc.after.Status, got, tc.want)
		}
	}
	if !Broken.Blamed() || !NewFailure.Blamed() || PreExisting.Blamed() || Fixed.Blamed() {
		t.Error("only broken checks and new failures are the run's")
	}
	s := Describe(fail("go build ./..."), Broken)
	if !strings.Contains(s, "`go build ./...` failed (exit 1") || !strings.Contains(s, "the run broke it") {
		t.Errorf("describe: %q", s)
	}
	if s := Describe(fail("go test ./..."), PreExisting); !strings.Contains(s, "pre-existing") {
		t.Errorf("describe: %q", s)
	}
}
