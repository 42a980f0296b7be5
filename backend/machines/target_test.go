//go:build unix

package machines

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/baton-app/baton/backend/session"
)

func TestParseDestination(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in       string
		want     Destination
		ssh, url string
	}{
		{"build-box", Destination{Alias: "build-box"}, "build-box", "ssh://build-box/w/r.git"},
		{"ana@build.example.com", Destination{User: "ana", Host: "build.example.com"}, "ssh://ana@build.example.com", "ssh://ana@build.example.com/w/r.git"},
		{"ana@10.0.0.5:2222", Destination{User: "ana", Host: "10.0.0.5", Port: 2222}, "ssh://ana@10.0.0.5:2222", "ssh://ana@10.0.0.5:2222/w/r.git"},
		{"box:2200", Destination{Host: "box", Port: 2200}, "ssh://box:2200", "ssh://box:2200/w/r.git"},
		{"ana@[::1]:22", Destination{User: "ana", Host: "::1", Port: 22}, "ssh://ana@[::1]:22", "ssh://ana@[::1]:22/w/r.git"},
		{"[fe80::1]", Destination{Host: "fe80::1"}, "ssh://[fe80::1]", "ssh://[fe80::1]/w/r.git"},
	}
	for _, tt := range tests {
		got, err := ParseDestination(tt.in)
		if err != nil {
			t.Errorf("ParseDestination(%q): %v", tt.in, err)
			continue
		}
		if got != tt.want || got.SSH() != tt.ssh || got.GitURL("/w/r.git") != tt.url || got.String() != tt.in {
			t.Errorf("ParseDestination(%q) = %+v (ssh %q, url %q, %q)", tt.in, got, got.SSH(), got.GitURL("/w/r.git"), got.String())
		}
	}
	bad := map[string]string{
		"":                     "ssh destination",
		"-oProxyCommand=x":     "starts with -",
		"ana:hunter2@box":      "never stores",
		"ssh://box":            "without ssh://",
		"ana@box:0":            "1 to 65535",
		"ana@box:http":         "1 to 65535",
		"ana@::1":              "brackets",
		"ana@[::1":             "closing ]",
		"ana@[nope]":           "not an IP",
		"ana@box name":         "may hold only",
		"an a@box":             "user name",
		"box;rm -rf /":         "may hold only",
		"ana@[::1]22":          "[address]:port",
		"ana@box.example.com:": "1 to 65535",
	}
	for in, want := range bad {
		_, err := ParseDestination(in)
		if err == nil || !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseDestination(%q) = %v, want an error saying %q", in, err, want)
		}
		if err != nil && strings.Contains(err.Error(), "hunter2") {
			t.Errorf("the error repeats the password: %v", err)
		}
	}
}

func TestValidate(t *testing.T) {
	t.Parallel()
	good := Target{Name: "build-box", Host: "ana@box:2222", Workspace: "~/baton", ClaudePath: "/opt/claude/bin/claude", MaxWorkers: 4, Env: []string{"ANTHROPIC_API_KEY"}}
	if err := good.Validate(); err != nil {
		t.Fatalf("a good target: %v", err)
	}
	if n := (Target{Name: " a ", Host: " box ", Workspace: " /srv/baton/ ", Env: []string{" X ", ""}}).Normalized(); n.Name != "a" || n.Host != "box" || n.Workspace != "/srv/baton" ||
		n.MaxWorkers != DefaultMaxWorkers || !slices.Equal(n.Env, []string{"X"}) {
		t.Errorf("Normalized = %+v", n)
	}
	tests := []struct {
		change func(*Target)
		want   string
	}{
		{func(t *Target) { t.Name = "" }, "give the machine a name"},
		{func(t *Target) { t.Name = "Build Box" }, "lower-case"},
		{func(t *Target) { t.Name = "local" }, "this machine's"},
		{func(t *Target) { t.Host = "ana:pw@box" }, "never stores"},
		{func(t *Target) { t.Workspace = "" }, "give the workspace"},
		{func(t *Target) { t.Workspace = "baton" }, "absolute path or start with ~/"},
		{func(t *Target) { t.Workspace = "/" }, "whole file system"},
		{func(t *Target) { t.Workspace = "~" }, "whole file system"},
		{func(t *Target) { t.Workspace = "~/my work" }, "no spaces"},
		{func(t *Target) { t.Workspace = "/srv/$(id)" }, "shell characters"},
		{func(t *Target) { t.Workspace = "/srv/../etc" }, ". or .."},
		{func(t *Target) { t.ClaudePath = "claude" }, "claude path"},
		{func(t *Target) { t.MaxWorkers = 0 }, "from 1 to 20"},
		{func(t *Target) { t.MaxWorkers = 21 }, "from 1 to 20"},
		{func(t *Target) { t.Env = []string{"ANTHROPIC_API_KEY=sk-secret"} }, "only the names"},
		{func(t *Target) { t.Env = []string{"1X"} }, "not the name of an environment variable"},
		{func(t *Target) { t.Env = []string{"X", "X"} }, "twice"},
	}
	for _, tt := range tests {
		tg := good
		tg.Env = slices.Clone(good.Env)
		tt.change(&tg)
		err := tg.Validate()
		if err == nil || !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%+v: Validate = %v, want %q", tg, err, tt.want)
		}
		if err != nil && strings.Contains(err.Error(), "sk-secret") {
			t.Errorf("the error repeats a value: %v", err)
		}
	}
}

func TestStore(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := PathBeside(filepath.Join(dir, "settings.json"))
	if path != filepath.Join(dir, FileName) {
		t.Fatalf("PathBeside = %s", path)
	}
	s, err := OpenStore(path)
	if err != nil || len(s.List()) != 0 {
		t.Fatalf("a missing file: %v %v", s.List(), err)
	}
	if _, err := s.Add(Target{Name: "b", Host: "box-b", Workspace: "~/baton"}); err != nil {
		t.Fatal(err)
	}
	a, err := s.Add(Target{Name: "a", Host: "ana@box-a:2222", Workspace: "/srv/baton", MaxWorkers: 3, Env: []string{"ANTHROPIC_API_KEY"}})
	if err != nil || a.MaxWorkers != 3 {
		t.Fatal(a, err)
	}
	if _, err := s.Add(Target{Name: "a", Host: "x", Workspace: "~/w"}); !errors.Is(err, ErrExists) {
		t.Errorf("adding a name twice: %v", err)
	}
	if _, err := s.Add(Target{Name: "c", Host: "x", Workspace: "w"}); !errors.Is(err, ErrInvalid) {
		t.Errorf("adding an invalid target: %v", err)
	}
	st, err := os.Stat(path)
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("the file: %v %v", st, err)
	}
	again, err := OpenStore(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := again.List(); len(got) != 2 || got[0].Name != "a" || got[1].Name != "b" || got[1].MaxWorkers != DefaultMaxWorkers || !slices.Equal(got[0].Env, []string{"ANTHROPIC_API_KEY"}) {
		t.Fatalf("read back: %+v", got)
	}
	a.MaxWorkers = 5
	if _, err := again.Update(a); err != nil {
		t.Fatal(err)
	}
	if _, err := again.Update(Target{Name: "zz", Host: "x", Workspace: "~/w"}); !errors.Is(err, ErrNotFound) {
		t.Errorf("updating a missing machine: %v", err)
	}
	if err := again.Remove("b"); err != nil {
		t.Fatal(err)
	}
	if err := again.Remove("b"); !errors.Is(err, ErrNotFound) {
		t.Errorf("removing twice: %v", err)
	}
	third, _ := OpenStore(path)
	if got, err := third.Get("a"); err != nil || got.MaxWorkers != 5 || len(third.List()) != 1 {
		t.Fatalf("after update and remove: %+v %v %+v", got, err, third.List())
	}
	data, _ := os.ReadFile(path)
	if strings.Contains(string(data), "password") || !strings.Contains(string(data), `"machines"`) {
		t.Errorf("the file: %s", data)
	}

	// A file Baton cannot use is reported and left as it is.
	for name, body := range map[string]string{
		"not JSON":      "{machines",
		"unknown field": `{"machines":[{"name":"a","host":"box","workspace":"~/w","password":"x"}]}`,
		"invalid":       `{"machines":[{"name":"a","host":"box","workspace":"w"}]}`,
		"twice":         `{"machines":[{"name":"a","host":"box","workspace":"~/w"},{"name":"a","host":"box2","workspace":"~/w"}]}`,
	} {
		p := filepath.Join(t.TempDir(), FileName)
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := OpenStore(p); err == nil || !strings.Contains(err.Error(), "leaves") {
			t.Errorf("%s: OpenStore = %v", name, err)
		}
		if got, _ := os.ReadFile(p); string(got) != body {
			t.Errorf("%s: the file was changed", name)
		}
	}
}

// Arguments reach the machine's shell exactly as they are: quoted for the
// login shell once, then $1, $2 … of /bin/sh.
func TestShellScriptKeepsArguments(t *testing.T) {
	t.Parallel()
	args := []string{"", "plain", "two words", "it's", `"double"`, "$HOME", "`id`", "a\nb", "~/x", "-n", "*"}
	out, err := exec.Command("/bin/sh", "-c", shellScript(`for a in "$@"; do printf '[%s]' "$a"; done`, args...)).Output()
	if err != nil {
		t.Fatal(err)
	}
	var want strings.Builder
	for _, a := range args {
		want.WriteString("[" + a + "]")
	}
	if string(out) != want.String() {
		t.Errorf("got %q, want %q", out, want.String())
	}
}

func TestEnvironmentForwardsOnlyNamedVariables(t *testing.T) {
	t.Parallel()
	c := &Client{target: Target{Name: "box", Env: []string{"ANTHROPIC_API_KEY", "LANG_CHOICE"}}}
	l := NewLauncher(c, []string{"ANTHROPIC_BASE_URL=http://127.0.0.1:1", "LANG_CHOICE=set by baton"})
	got, err := l.environment([]string{"HOME=/root", "PATH=/usr/bin", "ANTHROPIC_API_KEY=sk-1", "SECRET=x", "LANG_CHOICE=mine"})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"ANTHROPIC_API_KEY=sk-1", "ANTHROPIC_BASE_URL=http://127.0.0.1:1", "LANG_CHOICE=set by baton"}
	if !slices.Equal(got, want) {
		t.Errorf("environment = %q, want %q", got, want)
	}
	if _, err := l.environment([]string{"ANTHROPIC_API_KEY=a\nb"}); err == nil || strings.Contains(err.Error(), "a\nb") {
		t.Errorf("a value with a line break: %v", err)
	}
}

// What ssh says becomes the problem and its sentence.
func TestClassify(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cfg := filepath.Join(dir, "config")
	known := filepath.Join(dir, "known")
	if err := os.WriteFile(cfg, []byte("Host box\n  HostName 192.0.2.7\n  Port 2222\n  User ana\n  UserKnownHostsFile "+known+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := NewClient(Target{Name: "box", Host: "box", Workspace: "~/w"}, ClientOptions{ConfigFile: cfg})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close(context.Background()) })
	tests := []struct {
		said    string
		problem Problem
		is      []error
		want    []string
	}{
		{"No ED25519 host key is known for [192.0.2.7]:2222 and you have requested strict checking.\nHost key verification failed.", ProblemUnknownHostKey,
			[]error{ErrUnknownHostKey}, []string{"ssh-keyscan -p 2222 192.0.2.7 >> " + known, "ssh -F " + cfg + " -o StrictHostKeyChecking=accept-new box true", "192.0.2.7 port 2222"}},
		{"@@@@\n@    WARNING: REMOTE HOST IDENTIFICATION HAS CHANGED!     @\nHost key verification failed.", ProblemChangedHostKey,
			[]error{ErrChangedHostKey}, []string{"has changed", "ssh-keygen -f " + known + " -R '[192.0.2.7]:2222'"}},
		{"ana@192.0.2.7: Permission denied (publickey).", ProblemLogin, []error{ErrLoginRefused}, []string{"refused the login as ana", "ssh-copy-id box", "never asks for a password"}},
		{"ssh: connect to host 192.0.2.7 port 2222: Connection refused", ProblemUnreachable, []error{ErrUnreachable, session.ErrHostLost}, []string{"cannot reach box"}},
		{"Timeout, server 192.0.2.7 not responding.", ProblemLost, []error{session.ErrHostLost}, []string{"is lost: Timeout, server 192.0.2.7 not responding"}},
	}
	for _, tt := range tests {
		e := c.classify(context.Background(), tt.said)
		if e.Problem != tt.problem {
			t.Errorf("%q: problem %v, want %v", tt.said, e.Problem, tt.problem)
		}
		for _, target := range tt.is {
			if !errors.Is(e, target) {
				t.Errorf("%q: not %v", tt.said, target)
			}
		}
		if tt.problem >= ProblemUnknownHostKey && errors.Is(e, session.ErrHostLost) {
			t.Errorf("%q: a refusal reads as a lost connection", tt.said)
		}
		for _, w := range tt.want {
			if !strings.Contains(e.Error(), w) {
				t.Errorf("%q: %q does not say %q", tt.said, e.Error(), w)
			}
		}
	}
}
