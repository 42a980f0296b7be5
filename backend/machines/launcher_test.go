//go:build linux

package machines_test

import (
	"bytes"
	"context"
	"errors"
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

	"github.com/baton-app/baton/backend/claudecode"
	"github.com/baton-app/baton/backend/machines"
	"github.com/baton-app/baton/backend/machines/sshtest"
	"github.com/baton-app/baton/backend/session"
)

// lockedBuffer is a buffer written by one goroutine and read by another.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// waitProcesses waits until the other machine's processes that match
// keep are n (or fails with what runs).
func waitProcesses(t *testing.T, s *sshtest.Server, n int, keep func(sshtest.Proc) bool) []sshtest.Proc {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		var got []sshtest.Proc
		for _, p := range s.Processes() {
			if keep(p) {
				got = append(got, p)
			}
		}
		if len(got) == n {
			return got
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d processes on the other machine, want %d: %v", len(got), n, got)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func any(sshtest.Proc) bool { return true }

func sleeps(p sshtest.Proc) bool { return p.Comm == "sleep" }

// A process starts in its folder with the machine's own environment plus
// only the variables the target names and the launcher sets, none of them
// on a command line; its input, output, error output and exit status come
// through the connection.
func TestLauncherRunsAProcessThere(t *testing.T) {
	s := sshtest.Start(t, sshtest.Options{})
	ctx := timeout(t, 2*time.Minute)
	tg := s.Target("other")
	tg.Env = []string{"BATON_TEST_FORWARDED"}
	m := open(t, s, tg, "BATON_TEST_SET=set by baton", "HOME="+s.CLIHome)
	l := m.Launcher
	ws, err := m.Client.Workspace(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := l.CheckDir(ctx, ws); err != nil {
		t.Errorf("CheckDir(the workspace): %v", err)
	}
	if err := l.CheckDir(ctx, ws+"/missing"); err == nil || !strings.Contains(err.Error(), "not a folder") {
		t.Errorf("CheckDir(a missing folder): %v", err)
	}

	var stderr lockedBuffer
	p, err := l.Start(ctx, claudecode.Command{Path: "/bin/sh", Dir: ws, Stderr: &stderr,
		Env:  []string{"BATON_TEST_FORWARDED=it's forwarded", "BATON_TEST_SECRET=do not send", "PATH=/nowhere", "HOME=/root", "LANG=xx"},
		Args: []string{"-c", `read line; pwd; printf '%s|%s|%s|%s|%s|%s\n' "$line" "$BATON_TEST_FORWARDED" "$BATON_TEST_SECRET" "$BATON_TEST_SET" "$HOME" "$(id -un)"; echo oops >&2; exit 3`}})
	if err != nil {
		t.Fatal(err)
	}
	// While it waits for its input (Baton's starter and the program), no
	// value is on a command line there.
	for _, pr := range waitProcesses(t, s, 2, any) {
		if strings.Contains(pr.Args, "forwarded") || strings.Contains(pr.Args, "set by baton") {
			t.Errorf("a value is on the command line of %v", pr)
		}
	}
	if _, err := io.WriteString(p.Stdin(), "hello there\n"); err != nil {
		t.Fatal(err)
	}
	_ = p.Stdin().Close()
	out, _ := io.ReadAll(p.Stdout())
	err = p.Wait()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 3 || errors.Is(err, session.ErrHostLost) {
		t.Errorf("Wait = %v, want the process's exit status 3", err)
	}
	want := ws + "\nhello there|it's forwarded||set by baton|" + s.CLIHome + "|" + sshtest.User + "\n"
	if string(out) != want {
		t.Errorf("output %q, want %q", out, want)
	}
	if stderr.String() != "oops\n" {
		t.Errorf("error output %q", stderr.String())
	}
	p.End(true) // gone already: nothing happens

	// Output to a writer, and the machine's own PATH.
	var buf bytes.Buffer
	p, err = l.Start(ctx, claudecode.Command{Path: "sh", Stdout: &buf, Args: []string{"-c", `echo "$PATH"`}})
	if err != nil {
		t.Fatal(err)
	}
	_ = p.Stdin().Close()
	if err := p.Wait(); err != nil || !strings.Contains(buf.String(), "/usr/bin") || strings.Contains(buf.String(), "nowhere") {
		t.Errorf("PATH there = %q, %v", buf.String(), err)
	}

	// A folder that is not there.
	if _, err := l.Start(ctx, claudecode.Command{Path: "/bin/true", Dir: ws + "/missing"}); err == nil || !strings.Contains(err.Error(), "not a folder") {
		t.Errorf("a missing folder: %v", err)
	}

	// Finding the CLI there.
	if _, err := l.Find(ws + "/claude"); err == nil || !strings.Contains(err.Error(), "is not at "+ws+"/claude on other") {
		t.Errorf("Find(a missing binary) = %v", err)
	}
	if _, err := l.Find(""); err == nil || !strings.Contains(err.Error(), "not on the PATH of ssh commands on other") {
		t.Errorf("Find with no claude there = %v", err)
	}
	onMachine(t, s, "mkdir -p ~/.local/bin && printf '#!/bin/sh\\necho 9.9.9 \\(Claude Code\\)\\n' > ~/.local/bin/claude && chmod +x ~/.local/bin/claude")
	t.Cleanup(func() { onMachine(t, s, "rm -rf ~/.local") })
	if got, err := l.Find(""); err != nil || got != s.Home+"/.local/bin/claude" {
		t.Errorf("Find of the installer's claude = %q, %v", got, err)
	}
}

// End ends the whole process group there, not only the session; so does
// the end of the start's context.
func TestEndKillsTheProcessGroupThere(t *testing.T) {
	s := sshtest.Start(t, sshtest.Options{})
	ctx := timeout(t, 2*time.Minute)
	m := open(t, s, s.Target("other"))
	p, err := m.Launcher.Start(ctx, claudecode.Command{Path: "/bin/sh", Args: []string{"-c", "sleep 300 & sleep 301; wait"}})
	if err != nil {
		t.Fatal(err)
	}
	waitProcesses(t, s, 2, sleeps)
	p.End(false)
	if err := p.Wait(); err == nil {
		t.Error("a process ended by Baton returned no error")
	} else if errors.Is(err, session.ErrHostLost) {
		t.Errorf("a process ended by Baton reads as a lost connection: %v", err)
	}
	waitProcesses(t, s, 0, any)

	sctx, cancel := context.WithCancel(ctx)
	p, err = m.Launcher.Start(sctx, claudecode.Command{Path: "/bin/sh", Args: []string{"-c", "sleep 300 & sleep 301; wait"}})
	if err != nil {
		t.Fatal(err)
	}
	waitProcesses(t, s, 2, sleeps)
	cancel()
	_ = p.Wait()
	waitProcesses(t, s, 0, any)
}

// sshd stopped mid-session: the process ends with an *SSHError that
// matches session.ErrHostLost; once sshd is back a new start works, and
// the process the lost session left running there is ended.
func TestLostConnection(t *testing.T) {
	s := sshtest.Start(t, sshtest.Options{})
	ctx := timeout(t, 2*time.Minute)
	m := open(t, s, s.Target("other"))
	p, err := m.Launcher.Start(ctx, claudecode.Command{Path: "sleep", Args: []string{"300"}})
	if err != nil {
		t.Fatal(err)
	}
	waitProcesses(t, s, 1, sleeps)
	s.Stop()
	done := make(chan error, 1)
	go func() { done <- p.Wait() }()
	select {
	case err = <-done:
	case <-time.After(time.Minute):
		t.Fatal("Wait did not return after the machine dropped")
	}
	var se *machines.SSHError
	if !errors.Is(err, session.ErrHostLost) || !errors.As(err, &se) {
		t.Fatalf("Wait after sshd stopped = %v, want an *SSHError matching session.ErrHostLost", err)
	}
	t.Log(err)
	if _, err := m.Launcher.Start(ctx, claudecode.Command{Path: "true"}); !errors.Is(err, session.ErrHostLost) || !errors.Is(err, machines.ErrUnreachable) {
		t.Errorf("a start while the machine is down = %v", err)
	}
	// The process there runs on, cut off.
	waitProcesses(t, s, 1, sleeps)

	s.Restart()
	var out bytes.Buffer
	p, err = m.Launcher.Start(ctx, claudecode.Command{Path: "echo", Args: []string{"back"}, Stdout: &out})
	if err != nil {
		t.Fatalf("a start after sshd is back: %v", err)
	}
	_ = p.Stdin().Close()
	if err := p.Wait(); err != nil || out.String() != "back\n" {
		t.Fatalf("after sshd is back: %q, %v", out.String(), err)
	}
	waitProcesses(t, s, 0, sleeps)
}

// The shared connection ends on this machine (its ssh is killed) while
// the machine runs on: the process ends as lost, and the process the
// session left there is ended; a process group killed there (by someone
// else) is no lost connection.
func TestSessionLostWhileTheMachineRuns(t *testing.T) {
	s := sshtest.Start(t, sshtest.Options{})
	ctx := timeout(t, 2*time.Minute)
	sockets, err := os.MkdirTemp("", "baton-sshtest-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(sockets) })
	opts := s.ClientOptions()
	opts.SocketDir = sockets
	m, err := machines.Open(s.Target("other"), machines.Options{ClientOptions: opts})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = m.Close(context.Background()) })
	p, err := m.Launcher.Start(ctx, claudecode.Command{Path: "sleep", Args: []string{"300"}})
	if err != nil {
		t.Fatal(err)
	}
	waitProcesses(t, s, 1, sleeps)
	out, err := exec.Command("ssh", "-F", opts.ConfigFile, "-o", "ControlPath="+filepath.Join(sockets, "%C"), "-O", "check", sshtest.Alias).CombinedOutput()
	match := regexp.MustCompile(`pid=(\d+)`).FindSubmatch(out)
	if err != nil || match == nil {
		t.Fatalf("ssh -O check: %v: %s", err, out)
	}
	master, _ := strconv.Atoi(string(match[1]))
	if err := syscall.Kill(master, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	err = p.Wait()
	var se *machines.SSHError
	if !errors.As(err, &se) || !errors.Is(err, session.ErrHostLost) || !strings.Contains(err.Error(), "Baton ended the process there") {
		t.Fatalf("Wait after the shared connection ended = %v", err)
	}
	waitProcesses(t, s, 0, sleeps)

	p, err = m.Launcher.Start(ctx, claudecode.Command{Path: "/bin/sh", Args: []string{"-c", "sleep 300; :"}})
	if err != nil {
		t.Fatal(err)
	}
	starters := waitProcesses(t, s, 1, func(p sshtest.Proc) bool { return strings.Contains(p.Args, "baton-pgid") })
	if err := syscall.Kill(-starters[0].PID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	err = p.Wait()
	if err == nil || errors.Is(err, session.ErrHostLost) || !strings.Contains(err.Error(), "without an exit status") {
		t.Fatalf("Wait after the process group was killed = %v", err)
	}
	waitProcesses(t, s, 0, any)
}

// A machine whose sshd takes few sessions on one connection (MaxSessions)
// still runs more processes (ssh gives those beyond connections of their
// own), and End reaches each of them.
func TestMoreProcessesThanSessions(t *testing.T) {
	s := sshtest.Start(t, sshtest.Options{MaxSessions: 2})
	ctx := timeout(t, 2*time.Minute)
	m := open(t, s, s.Target("other"))
	var procs []claudecode.Process
	for range 4 {
		p, err := m.Launcher.Start(ctx, claudecode.Command{Path: "sleep", Args: []string{"300"}})
		if err != nil {
			t.Fatalf("start %d: %v", len(procs)+1, err)
		}
		procs = append(procs, p)
	}
	waitProcesses(t, s, 4, sleeps)
	for _, p := range procs {
		p.End(true)
		_ = p.Wait()
	}
	waitProcesses(t, s, 0, any)
}
