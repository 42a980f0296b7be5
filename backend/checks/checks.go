// Package checks runs a project's own checks — the commands that say
// whether it builds and whether its tests pass — the way a person would
// run them in its folder, so that a run reports what was checked instead
// of what an agent said. Its one rule: a check's outcome is its exit code,
// nothing else. Each check runs through the shell in its own process
// group with a time limit; at the limit the whole group is ended (a check
// that starts a server or a watcher leaves nothing behind). The output's
// tail is kept for the report.
//
// When a template names no checks, Detect finds the project's (a Makefile
// test target, a Go module, a package.json test script, Cargo.toml,
// pytest) and says which it chose and why. Compare reads a run's checks
// against the baseline taken before the run, so that a failure that was
// there before is reported as pre-existing, not blamed on the run.
//
// It imports nothing of Baton.
package checks

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"time"
	"unicode/utf8"
)

// Check is one command a project is checked with.
type Check struct {
	// Name is how the check is called in reports ("go test").
	Name string `json:"name"`
	// Command is the shell command line ("go test ./...").
	Command string `json:"command"`
}

// Status is how a check ended.
type Status string

// The statuses of a check.
const (
	// Passed: it exited 0.
	Passed Status = "passed"
	// Failed: it exited with another code.
	Failed Status = "failed"
	// TimedOut: it did not finish within its limit and was ended.
	TimedOut Status = "timeout"
	// NotRun: it could not be started (no shell, a folder that is gone).
	NotRun Status = "error"
)

// OK reports whether the check passed.
func (s Status) OK() bool { return s == Passed }

// Result is how one check went.
type Result struct {
	Check
	Status   Status `json:"status"`
	ExitCode int    `json:"exitCode"`
	// Duration is how long it ran.
	Duration time.Duration `json:"duration"`
	// Tail is the end of what it wrote (stdout and stderr together).
	Tail string `json:"tail"`
	// Message says in a sentence why a check did not run to its end
	// (timeout, not started); "" when it did.
	Message string `json:"message,omitempty"`
}

// Defaults of a Runner.
const (
	DefaultTimeout   = 10 * time.Minute
	DefaultTailBytes = 4000
)

// Runner runs checks.
type Runner struct {
	// Timeout bounds each check (DefaultTimeout when 0).
	Timeout time.Duration
	// TailBytes is how much of the end of a check's output is kept
	// (DefaultTailBytes when 0).
	TailBytes int
	// Env is added to the process environment (which checks inherit).
	Env []string
	// Grace is how long the output may still be read once the process
	// group was ended (2 s when 0).
	Grace time.Duration
}

// RunAll runs checks one after the other in dir and returns their results
// in order. A check that cannot start does not stop the others; when ctx
// ends, the check that runs is ended and the rest are not run.
func (r Runner) RunAll(ctx context.Context, dir string, checks []Check) []Result {
	out := make([]Result, 0, len(checks))
	for _, c := range checks {
		if ctx.Err() != nil {
			break
		}
		out = append(out, r.Run(ctx, dir, c))
	}
	return out
}

// Run runs one check in dir: through the shell, in its own process group,
// with the process environment, Env and CI=true (so that test runners do
// not wait for a terminal). At the time limit the whole group is ended and
// the result says so.
func (r Runner) Run(ctx context.Context, dir string, c Check) Result {
	timeout := r.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	keep := r.TailBytes
	if keep <= 0 {
		keep = DefaultTailBytes
	}
	grace := r.Grace
	if grace <= 0 {
		grace = 2 * time.Second
	}
	res := Result{Check: c, ExitCode: -1}
	if strings.TrimSpace(c.Command) == "" {
		res.Status, res.Message = NotRun, "the check has no command"
		return res
	}
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		res.Status, res.Message = NotRun, fmt.Sprintf("the folder %s to run %q in is not there", dir, c.Command)
		return res
	}
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := shell(cctx, c.Command)
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), "CI=true"), r.Env...)
	tail := &tailBuffer{max: keep}
	cmd.Stdout, cmd.Stderr = tail, tail
	cmd.Stdin = nil
	inGroup(cmd)
	// Output pipes held open by what the group started are not waited
	// for beyond the grace.
	cmd.WaitDelay = grace
	start := time.Now()
	err := cmd.Start()
	if err != nil {
		res.Status, res.Message = NotRun, fmt.Sprintf("%q could not be started: %v", c.Command, err)
		return res
	}
	err = cmd.Wait()
	res.Duration = time.Since(start)
	res.Tail = tail.String()
	var exit *exec.ExitError
	switch {
	case errors.Is(cctx.Err(), context.DeadlineExceeded):
		res.Status = TimedOut
		res.Message = fmt.Sprintf("%q did not finish within %s; Baton ended it and what it started.", c.Command, roundDuration(timeout))
	case ctx.Err() != nil:
		res.Status = NotRun
		res.Message = fmt.Sprintf("%q was stopped before it finished: the run stopped.", c.Command)
	case err == nil:
		res.Status, res.ExitCode = Passed, 0
	case errors.As(err, &exit):
		res.Status, res.ExitCode = Failed, exit.ExitCode()
		if res.ExitCode == 127 {
			res.Message = fmt.Sprintf("%q: the command was not found (exit 127).", c.Command)
		}
	default:
		res.Status, res.Message = NotRun, fmt.Sprintf("%q: %v", c.Command, err)
	}
	return res
}

// shell is the command that runs line through the system's shell.
func shell(ctx context.Context, line string) *exec.Cmd {
	if runtime.GOOS == "windows" {
		return exec.CommandContext(ctx, "cmd", "/C", line)
	}
	return exec.CommandContext(ctx, "/bin/sh", "-c", line)
}

func roundDuration(d time.Duration) string {
	if d >= time.Second {
		return d.Round(time.Second).String()
	}
	return d.String()
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	max     int
	buf     []byte
	dropped bool
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	n := len(p)
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - t.max; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
		t.dropped = true
	}
	return n, nil
}

// String is the tail as text: it starts at a line (or at least a
// character) when the start was cut, and holds no invalid UTF-8.
func (t *tailBuffer) String() string {
	b := t.buf
	if t.dropped {
		if i := bytes.IndexByte(b, '\n'); i >= 0 && i < len(b)-1 {
			b = b[i+1:]
		}
		for len(b) > 0 && !utf8.RuneStart(b[0]) {
			b = b[1:]
		}
	}
	return strings.ToValidUTF8(string(b), "\uFFFD")
}
