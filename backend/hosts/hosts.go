// Package hosts keeps Baton's one connection to a session host, of the
// kind the settings choose. The kinds (Simulator, Desktop, ClaudeCode) are
// registered in a Registry, as database/sql drivers are; the Manager
// opens, diagnoses and names the host only through its Kind, so nothing
// else branches on the host setting. It connects lazily, on first use, and
// publishes the connection status.
package hosts

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"sync"

	"github.com/baton-app/baton/backend/doctor"
	"github.com/baton-app/baton/backend/session"
	"github.com/baton-app/baton/backend/settings"
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
	// Kinds are the host kinds the settings can choose. Required.
	Kinds *Registry
	// Emit receives EventStatus; may be nil.
	Emit func(name string, payload any)
	// Logger; slog.Default when nil.
	Logger *slog.Logger
}

// Manager owns the connection. It is safe for concurrent use. It is itself
// an session.Host: each call goes to the host in use, connecting first
// when needed, and the notices of whichever host is connected arrive on one
// channel, so the engine keeps working across a reconnect.
type Manager struct {
	kinds *Registry
	emit  func(name string, payload any)
	log   *slog.Logger

	connect sync.Mutex // serializes connecting and disconnecting

	mu     sync.Mutex
	cfg    settings.Settings
	host   Conn
	gen    int // counts connections; a connection reports only while it is the one
	status Status
	closed bool

	// notices is given to every host this Manager connects, which writes
	// onto it; the engine reads it.
	notices chan session.Notice
	// linkCh is closed when the connection is lost or back (session.HostLink).
	linkCh chan struct{}
}

var (
	_ session.Host       = (*Manager)(nil)
	_ session.Browser    = (*Manager)(nil)
	_ session.HostLink   = (*Manager)(nil)
	_ session.Identifier = (*Manager)(nil)
)

// New returns a Manager for the host that cfg chooses among opts.Kinds;
// nothing is started.
func New(cfg settings.Settings, opts Options) *Manager {
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.Kinds == nil {
		opts.Kinds = NewRegistry()
	}
	m := &Manager{kinds: opts.Kinds, emit: opts.Emit, log: opts.Logger, cfg: cfg,
		notices: make(chan session.Notice, 256), linkCh: make(chan struct{})}
	m.status = Status{Host: cfg.Host, Label: m.kinds.Label(cfg.Host), State: StateIdle}
	return m
}

// Kinds returns the registry the Manager chooses from.
func (m *Manager) Kinds() *Registry { return m.kinds }

// Settings returns the settings the Manager connects with.
func (m *Manager) Settings() settings.Settings {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.cfg
}

// info is what the kind of the settings in force is; the zero Info for
// a name no kind has.
func (m *Manager) info() Info {
	m.mu.Lock()
	name := m.cfg.Host
	m.mu.Unlock()
	if k, err := m.kinds.Kind(string(name)); err == nil {
		return k.Info()
	}
	return Info{}
}

// Status returns the current connection status.
func (m *Manager) Status() Status {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.status
}

// Describe names the host in use truthfully, from its connection: the
// simulator Baton embeds, "baton sim" attached over CDP, Claude Desktop at
// its endpoint, or the Claude Code CLI with its version and path.
func (m *Manager) Describe() string {
	s := m.Status()
	if k, err := m.kinds.Kind(string(s.Host)); err == nil {
		return k.Describe(s)
	}
	return s.Label
}

// Current implements session.Identifier: the kind the settings choose,
// with what its connection reached when it is connected.
func (m *Manager) Current() session.Identity {
	m.mu.Lock()
	name := m.cfg.Host
	conn := m.host
	s := m.status
	m.mu.Unlock()
	id := session.Identity{Kind: string(name), Label: m.kinds.Label(name), Short: string(name)}
	k, err := m.kinds.Kind(string(name))
	if err != nil {
		id.Description = id.Label
		return id
	}
	info := k.Info()
	if info.Short != "" {
		id.Short = info.Short
	}
	id.Description = k.Describe(s)
	if conn == nil {
		return id
	}
	if p, ok := conn.(program); ok {
		id.Path, id.Version = p.Path(), p.Version()
	} else {
		id.Endpoint, _ = conn.Where()
	}
	return id
}

// program is a connection that runs a program of this machine (the Claude
// Code CLI): its path and version.
type program interface {
	Path() string
	Version() string
}

// Identity implements session.Identifier: the host in use, connected.
func (m *Manager) Identity(ctx context.Context) (session.Identity, error) {
	if _, err := m.Host(ctx); err != nil {
		return m.Current(), err
	}
	return m.Current(), nil
}

func (m *Manager) setStatus(s Status) {
	m.mu.Lock()
	s.Host, s.Label = m.cfg.Host, m.kinds.Label(m.cfg.Host)
	changed := s != m.status
	if lost(s) != lost(m.status) {
		close(m.linkCh)
		m.linkCh = make(chan struct{})
	}
	m.status = s
	m.mu.Unlock()
	if changed && m.emit != nil {
		m.emit(EventStatus, s)
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

// ConnectionChanged reports whether moving from a to b needs a new
// connection (see Registry.ConnectionChanged).
func (m *Manager) ConnectionChanged(a, b settings.Settings) bool {
	return m.kinds.ConnectionChanged(a, b)
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
	if !m.kinds.ConnectionChanged(old, cfg) {
		return nil
	}
	err := m.disconnectLocked(ctx)
	m.setStatus(Status{State: StateIdle})
	return err
}

// Host returns the connected host, connecting first if needed.
func (m *Manager) Host(ctx context.Context) (Conn, error) {
	m.connect.Lock()
	defer m.connect.Unlock()
	m.mu.Lock()
	host, cfg, closed, gen := m.host, m.cfg, m.closed, m.gen+1
	m.mu.Unlock()
	label := m.kinds.Label(cfg.Host)
	if closed {
		return nil, &ConnectError{label, ErrClosed}
	}
	if host != nil {
		return host, nil
	}
	m.setStatus(Status{State: StateConnecting})
	kind, err := m.kinds.Kind(string(cfg.Host))
	if err == nil {
		host, err = kind.Open(ctx, cfg, Env{Notices: m.notices, Logger: m.log, Report: func(s Status) { m.report(gen, s) }})
	}
	if err != nil {
		m.setStatus(Status{State: StateDisconnected, Reason: err.Error()})
		return nil, &ConnectError{label, err}
	}
	m.mu.Lock()
	m.host, m.gen = host, gen
	m.mu.Unlock()
	endpoint, page := host.Where()
	m.setStatus(Status{State: StateConnected, Endpoint: endpoint, Page: page})
	return host, nil
}

// report follows a connection's own status (a CDP reconnect), while it is
// the Manager's connection: the first connect reports its own outcome.
func (m *Manager) report(gen int, s Status) {
	m.mu.Lock()
	current := m.host != nil && m.gen == gen
	var endpoint string
	if current {
		endpoint, _ = m.host.Where()
	}
	m.mu.Unlock()
	if !current {
		return
	}
	if s.Endpoint == "" {
		s.Endpoint = endpoint
	}
	m.setStatus(s)
}

func (m *Manager) disconnectLocked(ctx context.Context) error {
	m.mu.Lock()
	host := m.host
	m.host = nil
	m.mu.Unlock()
	if host == nil {
		return nil
	}
	return host.Close(ctx) // stops the simulator too, when it runs one
}

// Diagnose checks the host that cfg chooses, as "baton doctor" does,
// without changing the connection in use: its kind checks it as cfg
// configures it (the simulator, which can only be checked running, is the
// one this Manager runs). The report names the kind; a host setting that
// names no kind is an *UnknownError.
func (m *Manager) Diagnose(ctx context.Context, cfg settings.Settings) (doctor.Report, error) {
	kind, err := m.kinds.Kind(string(cfg.Host))
	if err != nil {
		return doctor.Report{}, err
	}
	inUse := func(ctx context.Context) (Conn, error) {
		m.mu.Lock()
		same := m.cfg.Host == cfg.Host
		m.mu.Unlock()
		if !same {
			return nil, ErrNotInUse
		}
		return m.Host(ctx)
	}
	r := kind.Diagnose(ctx, cfg, inUse)
	info := kind.Info()
	r.Host, r.Label = string(info.Name), info.Label
	return r, nil
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

// Simulated reports whether the sessions run on a simulated kind, whose
// costs are simulated (the engine labels a run's cost so).
func (m *Manager) Simulated() bool { return m.info().Simulated }

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

// Warm implements session.Warmer for a connected host that warms sessions;
// it does nothing otherwise (it never connects).
func (m *Manager) Warm(ctx context.Context, opts session.StartOptions) (session.ID, error) {
	h := m.connected()
	w, ok := h.(session.Warmer)
	if !ok || !session.TakesSystemPrompt(h) {
		return "", nil
	}
	return w.Warm(ctx, opts)
}

// Cool implements session.Warmer.
func (m *Manager) Cool(id session.ID) {
	if w, ok := m.connected().(session.Warmer); ok {
		w.Cool(id)
	}
}

// Room implements session.Roomer: the connected host's memory budget, or
// none.
func (m *Manager) Room() session.Room {
	if r, ok := m.connected().(session.Roomer); ok {
		return r.Room()
	}
	return session.Room{}
}

// connected is the host connected now, or nil.
func (m *Manager) connected() session.Host {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.host == nil {
		return nil
	}
	return m.host
}

// TakesSystemPrompt implements session.SystemPrompter: the kind the
// settings choose takes a system prompt apart (the Claude Code CLI does).
func (m *Manager) TakesSystemPrompt() bool { return m.info().SystemPrompt }

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
