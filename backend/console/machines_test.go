//go:build linux

package console

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/baton-app/baton/backend/machines/sshtest"
	"github.com/baton-app/baton/backend/modelsim"
	"github.com/baton-app/baton/backend/service"
	"github.com/baton-app/baton/backend/view"
)

// otherMachine is a real sshd playing another machine for the console's
// commands: its ssh config and the CLI's environment there are given to
// Baton through BATON_SSH_CONFIG and BATON_MACHINE_ENV, and the CLI there
// reaches a model-sim of the test through the reverse forward. It returns
// the server, the pinned CLI as that user runs it, and model-sim's log.
func otherMachine(t *testing.T) (*sshtest.Server, string, *lockedLog) {
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
	return s, claude, log
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
