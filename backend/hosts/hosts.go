// Package hosts keeps Baton's one connection to a session host, as the
// settings choose it: the embedded simulator (started in-process with its
// own headless Chromium), Claude Desktop (attached over its CDP endpoint),
// or the Claude Code CLI (one child process per session).
// It connects lazily, on first use, and publishes the connection status.
package hosts

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/baton-app/baton/backend/chrome"
	"github.com/baton-app/baton/backend/claude"
	"github.com/baton-app/baton/backend/claudecode"
	"github.com/baton-app/baton/backend/session"
	"github.com/baton-app/baton/backend/settings"
	"github.com/baton-app/baton/backend/simulator"
)

// EventStatus carries a Status to the frontend whenever it changes.
const EventStatus = "host:status"

// State of the connection to the host.
type State string

const (
	StateIdle         State = "idle" // not connected yet: connects on first use
	StateConnecting   State = "connecting"
	StateConnected    State = "connected"
	StateReconnecting State = "reconnecting"
	StateDisconnected State = "disconnected"
)

// Status describes the connection for the frontend.
type Status struct {
	Host     settings.Host `json:"host"`
	Label    string        `json:"label"`
	State    State         `json:"state"`
	Reason   string        `json:"reason,omitempty"`
	Endpoint string        `json:"endpoint,omitempty"`
	Page     string        `json:"page,omitempty"`
}

// Label is how the UI names a host.
func Label(h settings.Host) string {
	switch h {
	case settings.HostDesktop:
		return "Claude Desktop"
	case settings.HostClaudeCode:
		return claudecode.Label
	}
	return "Simulator — no AI"
}

// ErrClosed is returned after Shutdown.
var ErrClosed = errors.New("session host connection is shut down")

// ConnectError says that the host could not be reached (or the Manager is
// shut down); every call through the Manager fails with it then. Its text
// is the underlying error's.
type ConnectError struct {
	Label string // the host, as the UI names it
	Err   error
}

func (e *ConnectError) Error() string { return e.Err.Error() }
func (e *ConnectError) Unwrap() error { return e.Err }

// Options are the dependencies of a Manager.
type Options struct {
	// Emit receives EventStatus; may be nil.
	Emit func(name string, payload any)
	// Logger; slog.Default when nil.
	Logger *slog.Logger
	// SimulatorSpeed divides the simulated agent's delays; 1 when zero.
	SimulatorSpeed float64
	// SimulatorScenario is the simulator's default scenario; "happy" when empty.
	SimulatorScenario string
	// ClaudeCodeStateDir is where the Claude Code host keeps its sessions
	// (required for that host).
	ClaudeCodeStateDir string
	// ClaudeCodeEnv is added to the environment of every Claude Code CLI.
	ClaudeCodeEnv []string
	// SimulatorStateDir is where the in-process simulator keeps its
	// sessions, so that a run survives Baton's exit; none kept when empty.
	SimulatorStateDir string
}

// connected is what the Manager needs of a connected host.
type connected interface {
	session.Host
	session.Browser
	Pending(ctx context.Context) ([]session.PermissionRequest, error)
	Close(ctx context.Context) error
}

// Manager owns the connection. It is safe for concurrent use. It is itself
// an session.Host: each call goes to the host in use, connecting first
// when needed, and the notices of whichever host is connected arrive on one
// channel, so the engine keeps working across a reconnect.
type Manager struct {
	opts Options
	log  *slog.Logger

	connect sync.Mutex // serializes connecting and disconnecting

	mu     sync.Mutex
	cfg    settings.Settings
	host   connected
	cdp    *claude.Host // host, when it is the CDP adapter
	sim    *simulator.Instance
	status Status
	closed bool

	// notices is given to every host this Manager connects, which writes
	// onto it; the engine reads it.
	notices chan session.Notice
	// linkCh is closed when the connection is lost or back (session.HostLink).
	linkCh chan struct{}
}

var (
	_ session.Host     = (*Manager)(nil)
	_ session.Browser  = (*Manager)(nil)
	_ session.HostLink = (*Manager)(nil)
)

// New returns a Manager for the host that cfg chooses; nothing is started.
func New(cfg settings.Settings, opts Options) *Manager {
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	m := &Manager{opts: opts, log: opts.Logger.With("component", "hosts"), cfg: cfg, notices: make(chan session.Notice, 256), linkCh: make(chan struct{})}
	m.status = Status{Host: cfg.Host, Label: Label(cfg.Host), State: StateIdle}
	return m
}

// Status returns the current connection status.
func (m *Manager) Status() Status {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.status
}

func (m *Manager) setStatus(s Status) {
	m.mu.Lock()
	s.Host, s.Label = m.cfg.Host, Label(m.cfg.Host)
	changed := s != m.status
	if lost(s) != lost(m.status) {
		close(m.linkCh)
		m.linkCh = make(chan struct{})
	}
	m.status = s
	m.mu.Unlock()
	if changed && m.opts.Emit != nil {
		m.opts.Emit(EventStatus, s)
	}
}

// lost: the connection was made and is lost now; the CDP connection
// reattaches on its own, with capped backoff.
func lost(s Status) bool { return s.State == StateReconnecting }

// Link implements session.HostLink: the engine's runs wait for a lost
// connection (and show "reconnecting") for a bounded time.
func (m *Manager) Link() session.LinkState {
	m.mu.Lock()
	defer m.mu.Unlock()
	return session.LinkState{Up: !lost(m.status), Reason: m.status.Reason, Changed: m.linkCh}
}

// ConnectionChanged reports whether moving from a to b needs a new connection.
func ConnectionChanged(a, b settings.Settings) bool {
	return a.Host != b.Host || a.CDPEndpoint != b.CDPEndpoint || a.AllowRemoteCDP != b.AllowRemoteCDP ||
		a.PagePattern != b.PagePattern || a.ChromePath != b.ChromePath || a.Headless != b.Headless ||
		a.PollIntervalMs != b.PollIntervalMs || a.ClaudePath != b.ClaudePath
}

// Configure applies new settings. When they change how Baton connects, the
// current connection is closed; the next use connects with the new ones.
func (m *Manager) Configure(ctx context.Context, cfg settings.Settings) error {
	m.connect.Lock()
	defer m.connect.Unlock()
	m.mu.Lock()
	old := m.cfg
	m.cfg = cfg
	m.mu.Unlock()
	if !ConnectionChanged(old, cfg) {
		return nil
	}
	err := m.disconnectLocked(ctx)
	m.setStatus(Status{State: StateIdle})
	return err
}

// Host returns the connected host, connecting first if needed.
func (m *Manager) Host(ctx context.Context) (connected, error) {
	m.connect.Lock()
	defer m.connect.Unlock()
	m.mu.Lock()
	host, cfg, closed := m.host, m.cfg, m.closed
	m.mu.Unlock()
	if closed {
		return nil, &ConnectError{Label(cfg.Host), ErrClosed}
	}
	if host != nil {
		return host, nil
	}
	m.setStatus(Status{State: StateConnecting})
	if cfg.Host == settings.HostClaudeCode {
		cc, err := m.startClaudeCode(ctx, cfg)
		if err != nil {
			m.setStatus(Status{State: StateDisconnected, Reason: err.Error()})
			return nil, &ConnectError{Label(cfg.Host), err}
		}
		m.mu.Lock()
		m.host = cc
		m.mu.Unlock()
		return cc, nil
	}
	cdp, sim, err := m.dial(ctx, cfg)
	if err != nil {
		m.setStatus(Status{State: StateDisconnected, Reason: err.Error()})
		return nil, &ConnectError{Label(cfg.Host), err}
	}
	m.mu.Lock()
	m.host, m.cdp, m.sim = cdp, cdp, sim
	m.mu.Unlock()
	m.setStatus(Status{State: StateConnected, Endpoint: cdp.Endpoint(), Page: cdp.Page()})
	return cdp, nil
}

// startClaudeCode makes the Claude Code host: it checks the CLI's version
// once; its children start with the sessions.
func (m *Manager) startClaudeCode(ctx context.Context, cfg settings.Settings) (*claudecode.Host, error) {
	if m.opts.ClaudeCodeStateDir == "" {
		return nil, errors.New("no folder for the Claude Code sessions was given")
	}
	version, err := claudecode.Version(ctx, cfg.ClaudePath)
	if err != nil {
		return nil, err
	}
	if claudecode.CompareVersions(version, claudecode.MinVersion) < 0 {
		return nil, fmt.Errorf("Claude Code %s is older than %s, the oldest Baton supports: update it (claude update)", version, claudecode.MinVersion)
	}
	h, err := claudecode.New(claudecode.Options{Path: cfg.ClaudePath, StateDir: m.opts.ClaudeCodeStateDir,
		Env: m.opts.ClaudeCodeEnv, Notices: m.notices, Logger: m.opts.Logger})
	if err != nil {
		return nil, err
	}
	m.setStatus(Status{State: StateConnected, Endpoint: h.Path(), Page: "Claude Code " + version})
	return h, nil
}

func (m *Manager) dial(ctx context.Context, cfg settings.Settings) (*claude.Host, *simulator.Instance, error) {
	opts := claude.Options{
		Logger:       m.opts.Logger,
		Notices:      m.notices,
		PollInterval: time.Duration(cfg.PollIntervalMs) * time.Millisecond,
		OnStatus:     m.onConnStatus,
	}
	if cfg.Host == settings.HostSimulator {
		host, sim, err := claude.StartSimulator(ctx, simulator.InstanceOptions{
			Simulator: simulator.Options{Speed: m.opts.SimulatorSpeed, Scenario: m.opts.SimulatorScenario, Logger: m.opts.Logger,
				StateDir: m.opts.SimulatorStateDir},
			ChromePath: cfg.ChromePath,
			Headed:     !cfg.Headless,
		}, opts)
		if err != nil {
			return nil, nil, err
		}
		return host, sim, nil
	}
	host, err := claude.Dial(ctx, chrome.Config{
		Endpoint:     cfg.CDPEndpoint,
		AllowRemote:  cfg.AllowRemoteCDP,
		PagePatterns: pagePatterns(cfg),
		Logger:       m.opts.Logger,
	}, opts)
	return host, nil, err
}

// pagePatterns is the user's page pattern, or nil for the usual ones.
func pagePatterns(cfg settings.Settings) []string {
	if p := strings.TrimSpace(cfg.PagePattern); p != "" {
		return []string{p}
	}
	return nil
}

// onConnStatus follows the CDP connection's own status (reconnects).
func (m *Manager) onConnStatus(s chrome.Status) {
	m.mu.Lock()
	connected := m.cdp != nil
	endpoint := ""
	if m.cdp != nil {
		endpoint = m.cdp.Endpoint()
	}
	m.mu.Unlock()
	if !connected {
		return // the first connect reports its own outcome
	}
	state := StateDisconnected
	switch s.State {
	case chrome.Connected:
		state = StateConnected
	case chrome.Reconnecting:
		state = StateReconnecting
	}
	m.setStatus(Status{State: state, Reason: s.Reason, Endpoint: endpoint, Page: s.Page})
}

func (m *Manager) disconnectLocked(ctx context.Context) error {
	m.mu.Lock()
	host := m.host
	m.host, m.cdp, m.sim = nil, nil, nil
	m.mu.Unlock()
	if host == nil {
		return nil
	}
	return host.Close(ctx) // stops the simulator too, when it runs one

}

// Diagnose checks the host that cfg chooses, as "baton doctor" does,
// without changing the connection in use: Claude Desktop is probed at cfg's
// endpoint; the simulator is the one this Manager runs (it connects first,
// so the report shows its page).
func (m *Manager) Diagnose(ctx context.Context, cfg settings.Settings) claude.Report {
	if cfg.Host == settings.HostClaudeCode {
		r := claudecode.Diagnose(ctx, claudecode.DoctorOptions{Path: cfg.ClaudePath, Env: m.opts.ClaudeCodeEnv})
		out := claude.Report{Endpoint: r.Path, AppVersion: r.Version, OK: r.OK}
		for _, c := range r.Checks {
			out.Checks = append(out.Checks, claude.Check{Name: c.Name, OK: c.OK, Detail: c.Detail, Fix: c.Fix})
		}
		return out
	}
	opts := claude.DoctorOptions{
		Endpoint:     cfg.CDPEndpoint,
		AllowRemote:  cfg.AllowRemoteCDP,
		PagePatterns: pagePatterns(cfg),
		ChromePath:   cfg.ChromePath,
	}
	if cfg.Host == settings.HostSimulator {
		m.mu.Lock()
		running := m.cfg.Host == settings.HostSimulator
		m.mu.Unlock()
		if !running {
			return claude.Report{Checks: []claude.Check{{
				Name:   "Simulator",
				Detail: "the simulator is not the host in use",
				Fix:    "Save the settings with Simulator as the host, then test the connection.",
			}}}
		}
		if _, err := m.Host(ctx); err != nil {
			return claude.Report{Checks: []claude.Check{{
				Name: "Simulator", Detail: err.Error(),
				Fix: "Install Chromium (or set its path in Settings) so Baton can start the simulator.",
			}}}
		}
		m.mu.Lock()
		if m.sim != nil {
			opts.Endpoint, opts.PagePatterns, opts.AllowRemote = m.sim.Endpoint(), []string{m.sim.PagePattern()}, false
		}
		m.mu.Unlock()
	}
	return claude.Diagnose(ctx, opts)
}

// Shutdown closes the connection and stops the simulator; later calls to
// Host fail with ErrClosed.
func (m *Manager) Shutdown(ctx context.Context) error {
	m.connect.Lock()
	defer m.connect.Unlock()
	m.mu.Lock()
	m.closed = true
	m.mu.Unlock()
	return m.disconnectLocked(ctx)
}

// Notices implements session.Host: the notices of the connected host.
func (m *Manager) Notices() <-chan session.Notice { return m.notices }

// Simulated reports whether the sessions run on the simulator, whose costs
// are simulated (the engine labels a run's cost so).
func (m *Manager) Simulated() bool { return m.Status().Host == settings.HostSimulator }

// Start implements session.Host.
func (m *Manager) Start(ctx context.Context, opts session.StartOptions) (session.ID, error) {
	h, err := m.Host(ctx)
	if err != nil {
		return "", err
	}
	if !session.TakesSystemPrompt(h) {
		// The settings changed to such a host since the engine asked.
		opts = session.WithSystemPrompt(opts)
	}
	return h.Start(ctx, opts)
}

// TakesSystemPrompt implements session.SystemPrompter: the host the settings
// choose takes a system prompt apart (the Claude Code CLI does).
func (m *Manager) TakesSystemPrompt() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.cfg.Host == settings.HostClaudeCode
}

// Send implements session.Host.
func (m *Manager) Send(ctx context.Context, id session.ID, text string) error {
	h, err := m.Host(ctx)
	if err != nil {
		return err
	}
	return h.Send(ctx, id, text)
}

// Read implements session.Host.
func (m *Manager) Read(ctx context.Context, id session.ID, cursor session.Cursor) (session.Batch, error) {
	h, err := m.Host(ctx)
	if err != nil {
		return session.Batch{}, err
	}
	return h.Read(ctx, id, cursor)
}

// Session implements session.Host.
func (m *Manager) Session(ctx context.Context, id session.ID) (session.Info, error) {
	h, err := m.Host(ctx)
	if err != nil {
		return session.Info{}, err
	}
	return h.Session(ctx, id)
}

// Interrupt implements session.Host.
func (m *Manager) Interrupt(ctx context.Context, id session.ID) error {
	h, err := m.Host(ctx)
	if err != nil {
		return err
	}
	return h.Interrupt(ctx, id)
}

// Archive implements session.Host.
func (m *Manager) Archive(ctx context.Context, id session.ID) error {
	h, err := m.Host(ctx)
	if err != nil {
		return err
	}
	return h.Archive(ctx, id)
}

// List implements session.Browser.
func (m *Manager) List(ctx context.Context, includeHidden bool) ([]session.Info, error) {
	h, err := m.Host(ctx)
	if err != nil {
		return nil, err
	}
	return h.List(ctx, includeHidden)
}

// RespondPermission implements session.Browser.
func (m *Manager) RespondPermission(ctx context.Context, requestID string, decision session.PermissionDecision, updatedInput json.RawMessage) error {
	h, err := m.Host(ctx)
	if err != nil {
		return err
	}
	return h.RespondPermission(ctx, requestID, decision, updatedInput)
}

// Pending returns the permission requests waiting in every session of the
// host, hidden ones included.
func (m *Manager) Pending(ctx context.Context) ([]session.PermissionRequest, error) {
	h, err := m.Host(ctx)
	if err != nil {
		return nil, err
	}
	return h.Pending(ctx)
}
