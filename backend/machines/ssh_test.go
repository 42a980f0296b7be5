//go:build linux

package machines_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/baton-app/baton/backend/machines"
	"github.com/baton-app/baton/backend/machines/sshtest"
	"github.com/baton-app/baton/backend/session"
)

func timeout(t *testing.T, d time.Duration) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// open makes the Machine of target on s, closed at the end of the test.
func open(t *testing.T, s *sshtest.Server, target machines.Target, env ...string) *machines.Machine {
	t.Helper()
	m, err := machines.Open(target, machines.Options{ClientOptions: s.ClientOptions(), Env: env})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := m.Close(ctx); err != nil {
			t.Errorf("close the machine: %v", err)
		}
	})
	return m
}

// An unknown host key is refused with a sentence whose command trusts it;
// running that command is all it takes to connect. A changed key, a
// refused login and a machine that is down each get their own sentence.
func TestHostKeysLoginAndReachability(t *testing.T) {
	s := sshtest.Start(t, sshtest.Options{})
	ctx := timeout(t, 2*time.Minute)

	known := filepath.Join(t.TempDir(), "known_hosts")
	if err := os.WriteFile(known, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	opts := machines.ClientOptions{ConfigFile: s.Config(known)}
	c, err := machines.NewClient(s.Target("other"), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close(context.Background()) })
	err = c.Connect(ctx)
	var se *machines.SSHError
	if !errors.As(err, &se) || se.Problem != machines.ProblemUnknownHostKey || !errors.Is(err, machines.ErrUnknownHostKey) || errors.Is(err, session.ErrHostLost) {
		t.Fatalf("an unknown host key: %v", err)
	}
	t.Log(err)
	scan := fmt.Sprintf("ssh-keyscan -p %d 127.0.0.1 >> %s", s.Port, known)
	accept := fmt.Sprintf("ssh -F %s -o StrictHostKeyChecking=accept-new %s true", opts.ConfigFile, sshtest.Alias)
	for _, want := range []string{scan, accept, "refuses to connect to other", "127.0.0.1 port " + fmt.Sprint(s.Port)} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the sentence %q does not say %q", err, want)
		}
	}
	if _, err := c.Run(ctx, "anything", "true"); !errors.Is(err, machines.ErrUnknownHostKey) {
		t.Errorf("a command with an unknown host key: %v", err)
	}
	// The sentence's command, as the user would paste it.
	cmd := regexp.MustCompile("`([^`]*ssh-keyscan[^`]*)`").FindStringSubmatch(err.Error())
	if cmd == nil {
		t.Fatalf("no ssh-keyscan command in %q", err)
	}
	if out, err := exec.Command("/bin/sh", "-c", cmd[1]).CombinedOutput(); err != nil {
		t.Fatalf("%s: %v: %s", cmd[1], err, out)
	}
	if err := c.Connect(ctx); err != nil {
		t.Fatalf("after trusting the key as told: %v", err)
	}

	// A known_hosts that holds another key for the machine.
	other := filepath.Join(t.TempDir(), "key")
	if out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", other).CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	pub, _ := os.ReadFile(other + ".pub")
	wrong := filepath.Join(t.TempDir(), "known_hosts")
	f := strings.Fields(string(pub))
	if err := os.WriteFile(wrong, []byte(fmt.Sprintf("[127.0.0.1]:%d %s %s\n", s.Port, f[0], f[1])), 0o600); err != nil {
		t.Fatal(err)
	}
	changed, err := machines.NewClient(s.Target("other"), machines.ClientOptions{ConfigFile: s.Config(wrong)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = changed.Close(context.Background()) })
	err = changed.Connect(ctx)
	if !errors.Is(err, machines.ErrChangedHostKey) || !strings.Contains(err.Error(), fmt.Sprintf("ssh-keygen -f %s -R '[127.0.0.1]:%d'", wrong, s.Port)) {
		t.Errorf("a changed host key: %v", err)
	}
	t.Log(err)

	// A user the machine does not let in.
	root := s.Target("other")
	root.Host = fmt.Sprintf("root@127.0.0.1:%d", s.Port)
	refused, err := machines.NewClient(root, s.ClientOptions())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = refused.Close(context.Background()) })
	err = refused.Connect(ctx)
	if !errors.Is(err, machines.ErrLoginRefused) || !strings.Contains(err.Error(), "refused the login as root") ||
		!strings.Contains(err.Error(), fmt.Sprintf("`ssh-copy-id -p %d root@127.0.0.1`", s.Port)) {
		t.Errorf("a refused login: %v", err)
	}
	t.Log(err)

	// The machine is down.
	s.Stop()
	down, err := machines.NewClient(s.Target("other"), s.ClientOptions())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = down.Close(context.Background()) })
	err = down.Connect(ctx)
	if !errors.Is(err, machines.ErrUnreachable) || !errors.Is(err, session.ErrHostLost) || !strings.Contains(err.Error(), "cannot reach other") {
		t.Errorf("a machine that is down: %v", err)
	}
	t.Log(err)
}

// The workspace is made on first use (mode 0700) and resolved to an
// absolute path; a workspace whose parent is missing is refused, since
// Baton writes nothing outside it.
func TestWorkspace(t *testing.T) {
	s := sshtest.Start(t, sshtest.Options{})
	ctx := timeout(t, time.Minute)
	tg := s.Target("other")
	tg.Workspace = "~/" + strings.TrimPrefix(s.Workspace, s.Home+"/")
	m := open(t, s, tg)
	ws, err := m.Client.Workspace(ctx)
	if err != nil || ws != s.Workspace {
		t.Fatalf("Workspace = %q, %v; want %s", ws, err, s.Workspace)
	}
	st, err := os.Stat(s.Workspace)
	if err != nil || st.Mode().Perm() != 0o700 || !st.IsDir() {
		t.Fatalf("the workspace on the machine: %v %v", st, err)
	}

	tg.Workspace = s.Root + "/missing/workspace"
	m2 := open(t, s, tg)
	_, err = m2.Client.Workspace(ctx)
	var ce *machines.CommandError
	if !errors.As(err, &ce) || !strings.Contains(err.Error(), "does not exist") {
		t.Fatalf("a workspace without its parent: %v", err)
	}
	if _, err := os.Stat(s.Root + "/missing"); !os.IsNotExist(err) {
		t.Errorf("Baton made a folder outside the workspace: %v", err)
	}
}
