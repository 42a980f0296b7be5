package hosts

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/baton-app/baton/backend/doctor"
	"github.com/baton-app/baton/backend/session"
	"github.com/baton-app/baton/backend/settings"
)

// An unknown kind is one clear sentence wherever its name turns up: the
// registry, the settings file, the Manager's connection and its doctor.
func TestUnknownKind(t *testing.T) {
	t.Parallel()
	kinds := testKinds(t, 1)
	const want = `Baton knows no session host called "cloud": choose "simulator", "desktop" or "claude-code"`
	_, err := kinds.Kind("cloud")
	var unknown *UnknownError
	if !errors.As(err, &unknown) || err.Error() != want {
		t.Fatalf("Kind(cloud) = %v, want %q", err, want)
	}
	if k, err := kinds.Kind("sim"); err != nil || k.Info().Name != settings.HostSimulator {
		t.Fatalf("Kind(sim) = %v, %v; want the simulator, as the terminal writes it", k, err)
	}
	if got := kinds.Choices(); got != "sim, desktop or claude-code" {
		t.Fatalf("Choices() = %q", got)
	}

	// settings.json with such a host is reported and left alone.
	path := filepath.Join(t.TempDir(), "settings.json")
	if err := os.WriteFile(path, []byte(`{"host": "cloud"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	st := settings.Open(path, kinds.Check)
	if p := st.Problem(); !errors.Is(p, settings.ErrBroken) || !strings.Contains(p.Error(), `host must be "simulator", "desktop" or "claude-code", not "cloud"`) {
		t.Fatalf("Problem() = %v", p)
	}
	bad := settings.Defaults()
	bad.Host = "sim" // the terminal's spelling is not a setting
	if _, err := st.Reset(); err != nil {
		t.Fatal(err)
	}
	if err := st.Save(bad); !errors.Is(err, settings.ErrInvalid) {
		t.Fatalf("Save(host sim) = %v, want ErrInvalid", err)
	}

	cfg := settings.Defaults()
	cfg.Host = "cloud"
	m := New(cfg, Options{Kinds: kinds})
	defer m.Shutdown(context.Background())
	if st := m.Status(); st.Label != "cloud" || st.State != StateIdle {
		t.Fatalf("status of an unknown kind = %+v", st)
	}
	var ce *ConnectError
	if _, err := m.Host(context.Background()); !errors.As(err, &ce) || err.Error() != want {
		t.Fatalf("Host() = %v, want %q", err, want)
	}
	if st := m.Status(); st.State != StateDisconnected || st.Reason != want {
		t.Fatalf("status after connecting to an unknown kind = %+v", st)
	}
	if _, err := m.Diagnose(context.Background(), cfg); !errors.As(err, &unknown) {
		t.Fatalf("Diagnose(cloud) = %v", err)
	}
	if m.Simulated() || m.TakesSystemPrompt() {
		t.Fatal("an unknown kind claims a trait")
	}
}

// Every kind diagnoses itself into the one report, named by the registry,
// each failure with its fix. The settings here fail fast: Claude Desktop on
// a closed port, a CLI that is not there, the simulator while another kind
// is in use.
func TestEveryKindDiagnosesIntoTheSharedReport(t *testing.T) {
	t.Parallel()
	kinds := testKinds(t, 1)
	inUse := settings.Defaults()
	inUse.Host = settings.HostDesktop
	inUse.CDPEndpoint = "http://" + closedAddr(t)
	m := New(inUse, Options{Kinds: kinds})
	defer m.Shutdown(context.Background())
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	checked := 0
	for _, k := range kinds.Kinds() {
		info := k.Info()
		cfg := inUse
		cfg.Host, cfg.ClaudePath = info.Name, filepath.Join(t.TempDir(), "claude")
		r, err := m.Diagnose(ctx, cfg)
		if err != nil {
			t.Fatalf("%s: %v", info.Name, err)
		}
		if r.Host != string(info.Name) || r.Label != info.Label || r.OK || r.Verdict != "" {
			t.Errorf("%s: report %+v", info.Name, r)
		}
		c, failed := r.Failed()
		if !failed || c.Fix == "" || c.Detail == "" {
			t.Errorf("%s: the failure is not explained: %+v", info.Name, r.Checks)
		}
		checked++
	}
	if checked != 3 {
		t.Fatalf("%d kinds diagnosed, want the 3 Baton ships", checked)
	}
	if m.Status().State != StateIdle {
		t.Fatalf("diagnosing connected the Manager: %+v", m.Status())
	}
}

// A kind is all the Manager needs: registered, it opens, names, describes
// and diagnoses itself, and its traits are the Manager's while it is in use.
func TestARegisteredKindNeedsNoChangeElsewhere(t *testing.T) {
	t.Parallel()
	fk := &fakeKind{}
	kinds := NewRegistry(fk, Desktop())
	cfg := settings.Defaults()
	cfg.Host = "fake"
	var got []Status
	m := New(cfg, Options{Kinds: kinds, Emit: func(name string, p any) { got = append(got, p.(Status)) }})
	defer m.Shutdown(context.Background())
	if !m.Simulated() || !m.TakesSystemPrompt() || m.Status().Label != "Fake host" {
		t.Fatalf("traits of the fake kind: simulated %v, system prompt %v, status %+v", m.Simulated(), m.TakesSystemPrompt(), m.Status())
	}
	c, err := m.Host(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if st := m.Status(); st.State != StateConnected || st.Endpoint != "fake://here" || st.Page != "fake page" {
		t.Fatalf("status once connected = %+v", st)
	}
	if m.Describe() != "the fake at fake://here" {
		t.Fatalf("Describe() = %q", m.Describe())
	}
	// The connection's own changes are the Manager's while it is current.
	fk.env.Report(Status{State: StateReconnecting, Reason: "gone"})
	if st := m.Status(); st.State != StateReconnecting || st.Endpoint != "fake://here" || st.Host != "fake" || m.Link().Up {
		t.Fatalf("status after the connection's report = %+v", st)
	}
	r, err := m.Diagnose(context.Background(), cfg)
	if err != nil || !r.OK || r.Host != "fake" || r.Label != "Fake host" || fk.diagnosedWith != c {
		t.Fatalf("Diagnose = %+v, %v (in use: %v)", r, err, fk.diagnosedWith)
	}
	// A connection that is no longer the Manager's reports nothing.
	old := fk.env
	other := cfg
	other.Host = settings.HostDesktop
	if err := m.Configure(context.Background(), other); err != nil {
		t.Fatal(err)
	}
	n := len(got)
	old.Report(Status{State: StateConnected})
	if len(got) != n || m.Status().State != StateIdle {
		t.Fatalf("an old connection changed the status: %+v", m.Status())
	}
	if !fk.closed {
		t.Fatal("switching kinds did not close the fake's connection")
	}
}

// A change needs a new connection only when it touches the host setting or
// a field the kind in use owns.
func TestConnectionChangedFollowsTheFieldsAKindOwns(t *testing.T) {
	t.Parallel()
	kinds := testKinds(t, 1)
	for _, tc := range []struct {
		host   settings.Host
		change func(*settings.Settings)
		want   bool
	}{
		{settings.HostDesktop, func(s *settings.Settings) { s.CDPEndpoint = "http://127.0.0.1:9333" }, true},
		{settings.HostDesktop, func(s *settings.Settings) { s.PagePattern = "claude.ai" }, true},
		{settings.HostDesktop, func(s *settings.Settings) { s.ChromePath = "/opt/chrome" }, false},
		{settings.HostDesktop, func(s *settings.Settings) { s.Host = settings.HostSimulator }, true},
		{settings.HostSimulator, func(s *settings.Settings) { s.Headless = false }, true},
		{settings.HostSimulator, func(s *settings.Settings) { s.PollIntervalMs = 500 }, true},
		{settings.HostSimulator, func(s *settings.Settings) { s.CDPEndpoint = "http://127.0.0.1:9333" }, false},
		{settings.HostClaudeCode, func(s *settings.Settings) { s.ClaudePath = "/opt/claude" }, true},
		{settings.HostClaudeCode, func(s *settings.Settings) { s.PollIntervalMs = 500 }, false},
		{settings.HostClaudeCode, func(s *settings.Settings) { s.Notifications = false }, false},
	} {
		a := settings.Defaults()
		a.Host = tc.host
		b := a
		tc.change(&b)
		if got := kinds.ConnectionChanged(a, b); got != tc.want {
			t.Errorf("%s: %+v → %+v: ConnectionChanged = %v, want %v", tc.host, a, b, got, tc.want)
		}
	}
}

func TestNewRegistryRefusesMistakes(t *testing.T) {
	t.Parallel()
	for name, kinds := range map[string][]Kind{
		"two of a name":    {Desktop(), Desktop()},
		"a name as short":  {Simulator(SimulatorOptions{}), &fakeKind{info: Info{Name: "sim", Label: "x"}}},
		"an unknown field": {&fakeKind{info: Info{Name: "x", Label: "x", Fields: []string{"cdpEndpiont"}}}},
		"no label":         {&fakeKind{info: Info{Name: "x"}}},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: NewRegistry did not panic", name)
				}
			}()
			NewRegistry(kinds...)
		}()
	}
}

// Each kind names its connection truthfully: the simulator attached over
// CDP is not Claude Desktop.
func TestDescribeIsTruthful(t *testing.T) {
	t.Parallel()
	kinds := testKinds(t, 1)
	for _, tc := range []struct {
		s    Status
		want string
	}{
		{Status{Host: settings.HostSimulator}, "the embedded simulator (no AI)"},
		{Status{Host: settings.HostDesktop, Endpoint: "http://127.0.0.1:9222", Page: "http://127.0.0.1:41234/baton-simulator/"},
			"the simulator (baton sim, no AI) at http://127.0.0.1:9222"},
		{Status{Host: settings.HostDesktop, Endpoint: "http://127.0.0.1:9222", Page: "https://claude.ai/new"}, "Claude Desktop at http://127.0.0.1:9222"},
		{Status{Host: settings.HostDesktop}, "Claude Desktop at an endpoint not connected yet"},
		{Status{Host: settings.HostClaudeCode, Endpoint: "/usr/bin/claude", Page: "Claude Code 2.0.1"}, "Claude Code CLI 2.0.1 (/usr/bin/claude)"},
	} {
		k, err := kinds.Kind(string(tc.s.Host))
		if err != nil {
			t.Fatal(err)
		}
		if got := k.Describe(tc.s); got != tc.want {
			t.Errorf("Describe(%+v) = %q, want %q", tc.s, got, tc.want)
		}
	}
}

// Settings shows the CLI's version while it is the host, and offers it
// when it is installed while another host is in use.
func TestProgramsFindTheCLI(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the stand-in CLI is a shell script")
	}
	t.Parallel()
	bin := filepath.Join(t.TempDir(), "claude")
	if err := os.WriteFile(bin, []byte("#!/bin/sh\necho '2.1.999 (Claude Code)'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	kinds := testKinds(t, 1)
	cfg := settings.Defaults()
	cfg.ClaudePath = bin
	if got := kinds.Programs(context.Background(), cfg); len(got) != 1 || got[0].InUse || got[0].Path != bin || got[0].Host != settings.HostClaudeCode {
		t.Fatalf("Programs while the simulator is in use = %+v", got)
	}
	cfg.Host = settings.HostClaudeCode
	if got := kinds.Programs(context.Background(), cfg); len(got) != 1 || !got[0].InUse || got[0].Version != "2.1.999" || got[0].Problem != "" {
		t.Fatalf("Programs while the CLI is in use = %+v", got)
	}
	cfg.ClaudePath = filepath.Join(t.TempDir(), "claude")
	if got := kinds.Programs(context.Background(), cfg); len(got) != 1 || !strings.Contains(got[0].Problem, "is not at") {
		t.Fatalf("Programs with a missing CLI = %+v", got)
	}
}

// fakeKind is a kind Baton does not ship.
type fakeKind struct {
	info          Info
	env           Env
	closed        bool
	diagnosedWith Conn
}

func (k *fakeKind) Info() Info {
	if k.info.Name != "" {
		return k.info
	}
	return Info{Name: "fake", Label: "Fake host", Fields: []string{"pollIntervalMs"}, Simulated: true, SystemPrompt: true}
}

func (k *fakeKind) Open(ctx context.Context, cfg settings.Settings, env Env) (Conn, error) {
	k.env = env
	return &fakeConn{kind: k}, nil
}

func (k *fakeKind) Diagnose(ctx context.Context, cfg settings.Settings, inUse InUse) doctor.Report {
	c, err := inUse(ctx)
	if err != nil {
		return doctor.Report{Checks: []doctor.Check{{Name: "fake", Detail: err.Error(), Fix: "Use the fake."}}}
	}
	k.diagnosedWith = c
	return doctor.Report{OK: true, Checks: []doctor.Check{{Name: "fake", OK: true, Detail: fmt.Sprint("in use")}}}
}

func (k *fakeKind) Describe(s Status) string { return "the fake at " + s.Endpoint }

// fakeConn answers only what the Manager asks of every connection.
type fakeConn struct {
	session.Host
	session.Browser
	kind *fakeKind
}

func (c *fakeConn) Pending(context.Context) ([]session.PermissionRequest, error) { return nil, nil }
func (c *fakeConn) Close(context.Context) error                                  { c.kind.closed = true; return nil }
func (c *fakeConn) Where() (string, string)                                      { return "fake://here", "fake page" }
