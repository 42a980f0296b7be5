package service

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/baton-app/baton/backend/doctor"
	"github.com/baton-app/baton/backend/hosts"
	"github.com/baton-app/baton/backend/settings"
	"github.com/baton-app/baton/backend/store"
)

// HostOverrides change the settings' session host for this process only
// (the terminal's --host, --cdp, --claude, --scenario and --sim-speed, and
// the doctor's --chrome, --page and --allow-remote).
type HostOverrides struct {
	// Host is a kind as the terminal names it ("sim", "desktop",
	// "claude-code"); "" keeps the setting, or takes the kind that CDP or
	// Claude implies.
	Host     string
	CDP      string // Claude Desktop's endpoint; implies Host "desktop"
	Claude   string // the Claude Code CLI's path; implies Host "claude-code"
	Scenario string // the simulator's default scenario
	Speed    float64
	// Chrome, Page and AllowRemote set the Chrome path, the page pattern
	// and the warned remote-endpoint switch when given.
	Chrome      string
	Page        string
	AllowRemote bool
}

// choosesHost reports whether the overrides choose a host (--host, --cdp,
// --claude) rather than leave it to the settings.
func (o HostOverrides) choosesHost() bool { return o.Host != "" || o.CDP != "" || o.Claude != "" }

// resumeHost is o with the host run runID ran on, when o chooses none: a
// resume continues on the run's own host whatever the settings say now. A
// CLI that is gone from where the run ran it is named, with what to do.
func resumeHost(st *store.Store, runID string, o HostOverrides) (HostOverrides, error) {
	if o.choosesHost() {
		return o, nil
	}
	run, err := st.Run(context.Background(), runID)
	if err != nil || run.Host.Kind == "" {
		return o, nil // an unknown run is named by the resume; an old one has no host kept
	}
	o.Host = run.Host.Kind
	switch run.Host.Kind {
	case string(settings.HostClaudeCode):
		if run.Host.Path != "" {
			if _, err := os.Stat(run.Host.Path); err != nil {
				return o, fmt.Errorf("run %s ran on the Claude Code CLI at %s, which is not there any more: give --claude PATH to continue it with another CLI, or --host to move it to another host",
					runID, run.Host.Path)
			}
			o.Claude = run.Host.Path
		}
	case string(settings.HostDesktop):
		o.CDP = run.Host.Endpoint
	}
	return o, nil
}

// hostKinds are the session host kinds Baton ships, configured for the
// configuration directory dir: each keeps its sessions in its own folder
// there.
func hostKinds(dir string, o HostOverrides) *hosts.Registry {
	return hosts.NewRegistry(
		hosts.Simulator(hosts.SimulatorOptions{Speed: o.Speed, Scenario: o.Scenario, StateDir: filepath.Join(dir, "simulator")}),
		hosts.Desktop(),
		hosts.ClaudeCode(hosts.ClaudeCodeOptions{StateDir: filepath.Join(dir, "claude-code")}),
	)
}

// openHosts opens the settings (checked by the host kinds) and the session
// host connection they choose, with o's overrides; nothing connects yet.
func (s *Services) openHosts(o Options) error {
	path, err := settings.DefaultPath()
	if err != nil {
		return &OpenError{StageConfigDir, err}
	}
	kinds := hostKinds(filepath.Dir(path), o.Host)
	s.Settings = settings.Open(path, kinds.Check)
	if err := s.Settings.Problem(); err != nil {
		s.log.Warn("settings file unusable; using defaults", "component", "service", "err", err)
	}
	cfg, err := hostSettings(kinds, s.Settings.Get(), o.Host)
	if err != nil {
		return &OpenError{StageHost, err}
	}
	s.Hosts = hosts.New(cfg, hosts.Options{Kinds: kinds, Emit: s.Events.Emit, Logger: s.log})
	return nil
}

// OpenHosts opens only the settings and the session host connection, with
// o.Host's overrides (nothing connects until it is used): what "baton
// doctor" needs to test a host, without the history database or the
// engine. Close closes them.
func OpenHosts(o Options) (*Services, error) {
	log := o.Logger
	if log == nil {
		log = slog.Default()
	}
	s := &Services{Events: &Events{}, log: log}
	s.ctx, s.cancel = context.WithCancel(context.Background())
	if err := s.openHosts(o); err != nil {
		s.cancel()
		return nil, err
	}
	return s, nil
}

// hostSettings applies the overrides to the settings' host choice. A CDP
// endpoint or a CLI path implies its kind unless o.Host names one.
func hostSettings(kinds *hosts.Registry, cfg settings.Settings, o HostOverrides) (settings.Settings, error) {
	if o == (HostOverrides{}) {
		return cfg, nil
	}
	var implied settings.Host
	if o.CDP != "" {
		cfg.CDPEndpoint, implied = o.CDP, settings.HostDesktop
	}
	if o.Claude != "" {
		cfg.ClaudePath, implied = o.Claude, settings.HostClaudeCode
	}
	if o.Chrome != "" {
		cfg.ChromePath = o.Chrome
	}
	if o.Page != "" {
		cfg.PagePattern = o.Page
	}
	cfg.AllowRemoteCDP = cfg.AllowRemoteCDP || o.AllowRemote
	switch {
	case o.Host != "":
		k, err := kinds.Kind(o.Host)
		if err != nil {
			return cfg, fmt.Errorf("--host must be %s, not %q", kinds.Choices(), o.Host)
		}
		cfg.Host = k.Info().Name
	case implied != "":
		cfg.Host = implied
	}
	if err := cfg.Validate(); err != nil {
		return cfg, err
	}
	return cfg, kinds.Check(cfg)
}

// TestHost is the host test, one use case for the window and the terminal
// (the Settings view's Test connection, "baton doctor"): it checks the
// session host that cfg chooses with its kind's doctor, without changing
// the connection in use, and returns the report. Settings that cannot be
// used are an error (settings.ErrInvalid) naming the first problem.
func (s *Services) TestHost(ctx context.Context, cfg settings.Settings) (doctor.Report, error) {
	if err := s.Settings.Check(cfg); err != nil {
		return doctor.Report{}, err
	}
	return s.Hosts.Diagnose(ctx, cfg)
}
