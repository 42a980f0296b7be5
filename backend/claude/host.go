// Package claude is the LocalSessions adapter: it implements
// session.Host (and session.Browser) over a CDP connection to
// Claude Desktop's window['claude.web'].LocalSessions, or to the
// simulator's page that imitates it.
package claude

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync/atomic"
	"time"

	"github.com/baton-app/baton/backend/chrome"
	"github.com/baton-app/baton/backend/session"
)

// RequiredMethods are the LocalSessions methods without which the adapter
// cannot work; New fails naming the first one missing.
var RequiredMethods = []string{"getAll", "getSession", "start", "sendMessage", "getTranscript"}

// OptionalMethods are used when present; a call that needs a missing one
// fails with a *MissingMethodError.
var OptionalMethods = []string{"interrupt", "archive", "respondToToolPermission", "onOnEvent", "onOnToolPermissionRequest", "stop", "unarchive", "setModel", "setPermissionMode"}

// Sentinel errors.
var (
	// ErrNoSession is returned for a session id the host does not know. It
	// is the engine's sentinel, so a worker whose session never started is
	// restarted at once under the same id.
	ErrNoSession = session.ErrNoSession
	// ErrNotDelivered is returned when a sent message did not appear in
	// the session's transcript in time.
	ErrNotDelivered = errors.New("message did not reach the session")
	// ErrMissingMethod is matched by every *MissingMethodError.
	ErrMissingMethod = errors.New("missing LocalSessions method")
)

// MissingMethodError names a LocalSessions method the page lacks.
type MissingMethodError struct {
	Method  string
	Version string
}

func (e *MissingMethodError) Error() string {
	if e.Method == "" {
		return fmt.Sprintf("the page has no window['claude.web'].LocalSessions (app %s)", e.Version)
	}
	return fmt.Sprintf("LocalSessions.%s is missing in this app version (%s)", e.Method, e.Version)
}

func (e *MissingMethodError) Unwrap() error { return ErrMissingMethod }

// Options tune the adapter.
type Options struct {
	// SendTimeout bounds the wait for a sent message to appear in the
	// transcript; 30s when zero.
	SendTimeout time.Duration
	// ReadLimit is the most entries one Read returns; 2000 when zero.
	ReadLimit int
	// MaxPushedEntry is the largest transcript entry (its JSON) that a
	// notice carries, so that Read need not fetch it from the page;
	// MaxPushedEntry (256 KiB) when zero, none when negative.
	MaxPushedEntry int
	// Logger; slog.Default when nil.
	Logger *slog.Logger
	// Notices receives the sessions' notices. When nil the Host makes its
	// own channel, which Notices returns.
	Notices chan<- session.Notice
	// PollInterval is the interval of the polling fallback used when the
	// page has no onOnEvent; 2s when zero.
	PollInterval time.Duration
	// ProbeOnly attaches without installing listeners or polling (for
	// diagnostics that must not disturb the page).
	ProbeOnly bool
	// OnStatus, when set and the chrome.Config has none, receives every
	// status change of the connection.
	OnStatus func(chrome.Status)
	// OnClose, when set, runs in Close after the connection is closed: it
	// stops what the caller started for the adapter (the simulator's
	// server and browser, for the Simulator host).
	OnClose func(context.Context) error
	// EndpointKind is how the endpoint is reached: EndpointPage (a DevTools
	// page endpoint, --remote-debugging-port), EndpointInspector (the main
	// process's Node inspector, "Enable Main Process Debugger"), or
	// EndpointAuto ("", detected from the endpoint's /json/list).
	EndpointKind string
}

// Host is the LocalSessions adapter.
type Host struct {
	link  *link
	state *linkState // the connection's status, for session.HostLink
	opts  Options
	log   *slog.Logger
	// Reads served from the pushed entries, and from the page.
	pushedReads, pageReads atomic.Int64
}

var (
	_ session.Host    = (*Host)(nil)
	_ session.Browser = (*Host)(nil)
)

// Dial connects to the page that cfg selects (PagePatterns when it names
// none), checks that it has every required method and makes the adapter,
// which owns the connection and closes it in Close.
func Dial(ctx context.Context, cfg chrome.Config, opts Options) (*Host, error) {
	log := opts.Logger
	if log == nil {
		log = slog.Default()
	}
	if cfg.OnStatus == nil {
		cfg.OnStatus = opts.OnStatus
	}
	state := newLinkState()
	if user := cfg.OnStatus; user != nil {
		cfg.OnStatus = func(s chrome.Status) { state.set(s); user(s) }
	} else {
		cfg.OnStatus = state.set
	}
	l, err := dialLink(ctx, cfg, opts.EndpointKind, linkOptions{ProbeOnly: opts.ProbeOnly, PollInterval: opts.PollInterval, Notices: opts.Notices, Logger: log, MaxPushedEntry: opts.MaxPushedEntry})
	if err != nil {
		return nil, err
	}
	if err := missingMethod(l.Probe()); err != nil {
		cctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		return nil, errors.Join(err, l.Close(cctx))
	}
	if opts.SendTimeout <= 0 {
		opts.SendTimeout = 30 * time.Second
	}
	if opts.ReadLimit <= 0 {
		opts.ReadLimit = 2000
	}
	return &Host{link: l, state: state, opts: opts, log: log.With("component", "claude")}, nil
}

// missingMethod names what the page lacks of LocalSessions, or is nil.
func missingMethod(p Probe) error {
	if !p.Present {
		return &MissingMethodError{Version: p.Version}
	}
	for _, m := range RequiredMethods {
		if !p.Has(m) {
			return &MissingMethodError{Method: m, Version: p.Version}
		}
	}
	return nil
}

// Conn returns the underlying CDP page connection (for its status and
// traffic); nil on the Node inspector route (see Endpoint and Page).
func (h *Host) Conn() *chrome.Conn { return h.link.conn }

// Endpoint is the endpoint the adapter is attached to.
func (h *Host) Endpoint() string {
	if h.link.insp != nil {
		return h.link.insp.Endpoint()
	}
	return h.link.conn.Endpoint()
}

// Page is the URL of the page the adapter drives.
func (h *Host) Page() string {
	if h.link.insp != nil {
		return h.link.insp.Page()
	}
	return h.link.conn.Status().Page
}

// Route says how the adapter reaches the app: "page" (a DevTools page
// endpoint) or "inspector" (the main process's Node inspector).
func (h *Host) Route() string {
	if h.link.insp != nil {
		return EndpointInspector
	}
	return EndpointPage
}

// Probe returns what the page reported about LocalSessions.
func (h *Host) Probe() Probe { return h.link.Probe() }

// Close closes the connection, then runs Options.OnClose.
func (h *Host) Close(ctx context.Context) error {
	err := h.link.Close(ctx)
	if h.opts.OnClose != nil {
		err = errors.Join(err, h.opts.OnClose(ctx))
	}
	return err
}

// Notices implements session.Host: the Host's own channel, or nil
// when Options.Notices named the channel to write to.
func (h *Host) Notices() <-chan session.Notice { return h.link.Notices() }

// call runs one embedded function and maps page errors.
func (h *Host) call(ctx context.Context, fn string, out any, args ...any) error {
	raw, err := h.link.call.Call(ctx, fn, args...)
	if err != nil {
		return h.mapErr(err)
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(raw, out); err != nil {
		return fmt.Errorf("decode page answer: %w", err)
	}
	return nil
}

// callIdempotent retries a call that a page reload, a closed page or a lost
// browser interrupted (the connection reattaches in between).
func (h *Host) callIdempotent(ctx context.Context, fn string, out any, args ...any) error {
	var err error
	for range 5 {
		err = h.call(ctx, fn, out, args...)
		if !errors.Is(err, chrome.ErrContextLost) && !errors.Is(err, chrome.ErrConnectionLost) {
			return err
		}
	}
	return err
}

func (h *Host) mapErr(err error) error {
	if errors.Is(err, chrome.ErrConnectionLost) {
		// The browser went away: the host is lost (session.ErrHostLost),
		// whether or not the link has noticed yet.
		return fmt.Errorf("%w: %w", session.ErrHostLost, err)
	}
	var js *chrome.JSError
	if errors.As(err, &js) {
		switch {
		case js.Message == "missing LocalSessions":
			return &MissingMethodError{Version: h.link.Probe().Version}
		case strings.HasPrefix(js.Message, "missing method: "):
			return &MissingMethodError{Method: strings.TrimPrefix(js.Message, "missing method: "), Version: h.link.Probe().Version}
		}
	}
	return err
}

// Start implements session.Host. The id is passed as sessionId: the
// chosen opts.ID, or a new "local_<uuid>" (so a start interrupted by a page
// reload can be found again); when the app ignores it, the id it chose is
// returned.
func (h *Host) Start(ctx context.Context, opts session.StartOptions) (session.ID, error) {
	if opts.Cwd == "" || opts.Message == "" {
		return "", errors.New("start session: cwd and message are required")
	}
	if opts.ID == "" {
		// Choose the id in the app's own format, so a start that a page
		// reload interrupts can be found again.
		opts.ID = session.ID("local_" + newUUID())
	}
	// useWorktree is always sent: the app makes a git worktree for every
	// new session unless told not to, and Baton's runs work in their folder.
	info := map[string]any{"cwd": opts.Cwd, "message": opts.Message, "useWorktree": opts.UseWorktree}
	for k, v := range map[string]string{"title": opts.Title, "sessionId": string(opts.ID), "model": opts.Model, "permissionMode": opts.PermissionMode} {
		if v != "" {
			info[k] = v
		}
	}
	var id string
	err := h.call(ctx, startJS, &id, info)
	if errors.Is(err, chrome.ErrContextLost) || errors.Is(err, chrome.ErrConnectionLost) {
		// the page reloaded during start: the session may exist anyway
		if _, serr := h.Session(ctx, opts.ID); serr == nil {
			return opts.ID, nil
		}
	}
	if err != nil {
		return "", fmt.Errorf("start session: %w", err)
	}
	if opts.ID != "" && session.ID(id) != opts.ID {
		h.log.Warn("the app chose its own session id", "asked", opts.ID, "got", id)
	}
	if err := h.checkWorktree(ctx, session.ID(id), opts); err != nil {
		return "", err
	}
	return session.ID(id), nil
}

// Send implements session.Host: it returns once the message is in
// this session's transcript, or ErrNotDelivered.
func (h *Host) Send(ctx context.Context, id session.ID, text string) error {
	if text == "" {
		return errors.New("send: message is empty")
	}
	var res struct {
		Landed bool `json:"landed"`
		Queued bool `json:"queued"`
		Index  int  `json:"index"`
	}
	if err := h.call(ctx, sendJS, &res, string(id), text, h.opts.SendTimeout.Milliseconds(), newUUID(), queuedAfter.Milliseconds()); err != nil {
		return fmt.Errorf("send to %s: %w", id, err)
	}
	if res.Queued {
		// The app holds it until the running turn ends: delivered.
		h.log.Debug("message queued behind the running turn", "session", id)
		return nil
	}
	if !res.Landed {
		return fmt.Errorf("send to %s: %w within %s", id, ErrNotDelivered, h.opts.SendTimeout)
	}
	return nil
}

// Read implements session.Host. At most Options.ReadLimit entries come
// back; Next.Index < Total means more are waiting.
func (h *Host) Read(ctx context.Context, id session.ID, cursor session.Cursor) (session.Batch, error) {
	var res struct {
		Entries []json.RawMessage `json:"entries"`
		Total   int               `json:"total"`
		Index   int               `json:"index"`
		UUID    string            `json:"uuid"`
		Reset   bool              `json:"reset"`
		Tail    bool              `json:"tail"`
	}
	if raws, last, ok := h.link.pushed.after(id, cursor.UUID, h.opts.ReadLimit); ok {
		// The notices carried every new entry: no round trip to the page.
		h.link.learnAliases(id, raws)
		h.pushedReads.Add(1)
		next := cursor.Index + len(raws)
		return session.Batch{Entries: raws, Next: session.Cursor{Index: next, UUID: last}, Total: next}, nil
	}
	h.pageReads.Add(1)
	tail := 0
	if h.link.Probe().Has("getTranscriptTail") {
		tail = tailLimit
	}
	if err := h.callIdempotent(ctx, readJS, &res, string(id), cursor.Index, cursor.UUID, h.opts.ReadLimit, tail); err != nil {
		return session.Batch{}, fmt.Errorf("read %s: %w", id, err)
	}
	h.link.learnAliases(id, res.Entries)
	if res.Entries == nil {
		res.Entries = []json.RawMessage{}
	}
	return session.Batch{Entries: res.Entries, Next: session.Cursor{Index: res.Index, UUID: res.UUID}, Total: res.Total, Reset: res.Reset}, nil
}

// Reads returns how many Reads the pushed entries served and how many
// went to the page.
func (h *Host) Reads() (pushed, page int) {
	return int(h.pushedReads.Load()), int(h.pageReads.Load())
}

// sessionObject is the page's session shape.
type sessionObject struct {
	SessionID      string          `json:"sessionId"`
	Title          string          `json:"title"`
	Cwd            string          `json:"cwd"`
	Model          string          `json:"model"`
	PermissionMode string          `json:"permissionMode"`
	IsRunning      bool            `json:"isRunning"`
	TurnRunning    *bool           `json:"turnRunning"`
	IsArchived     bool            `json:"isArchived"`
	CreatedAt      flexTime        `json:"createdAt"`
	LastActivityAt flexTime        `json:"lastActivityAt"`
	WorktreePath   string          `json:"worktreePath"`
	OriginCwd      string          `json:"originCwd"`
	Pending        []pendingObject `json:"pendingToolPermissions"`
}

type pendingObject struct {
	RequestID   string          `json:"requestId"`
	ToolName    string          `json:"toolName"`
	Input       json.RawMessage `json:"input"`
	Suggestions json.RawMessage `json:"suggestions"`
}

func (o sessionObject) info() session.Info {
	si := session.Info{
		ID: session.ID(o.SessionID), Title: o.Title, Cwd: o.Cwd, Model: o.Model, PermissionMode: o.PermissionMode,
		Running: o.IsRunning, Archived: o.IsArchived, Hidden: session.IsHidden(session.ID(o.SessionID), o.Title),
		Pending: []session.PermissionRequest{},
	}
	// turnRunning is preferred; without it, a live process is shown as
	// busy, but the turn's end comes from its result only (isRunning means
	// the process is alive, not that Claude works).
	if o.TurnRunning != nil {
		si.TurnRunning = *o.TurnRunning
	} else {
		si.TurnRunning = o.IsRunning
		si.TurnUnknown = true
	}
	si.CreatedAt = o.CreatedAt.t
	si.LastActivityAt = o.LastActivityAt.t
	for _, p := range o.Pending {
		si.Pending = append(si.Pending, session.PermissionRequest{RequestID: p.RequestID, SessionID: si.ID, ToolName: p.ToolName, Input: p.Input, Suggestions: p.Suggestions})
	}
	return si
}

// Session implements session.Host.
func (h *Host) Session(ctx context.Context, id session.ID) (session.Info, error) {
	var o *sessionObject
	if err := h.callIdempotent(ctx, sessionJS, &o, string(id)); err != nil {
		return session.Info{}, fmt.Errorf("session %s: %w", id, err)
	}
	if o == nil {
		return session.Info{}, fmt.Errorf("session %s: %w", id, ErrNoSession)
	}
	return o.info(), nil
}

// List implements session.Browser.
func (h *Host) List(ctx context.Context, includeHidden bool) ([]session.Info, error) {
	var objs []sessionObject
	if err := h.callIdempotent(ctx, listJS, &objs, includeHidden); err != nil {
		return nil, fmt.Errorf("list sessions: %w", err)
	}
	out := make([]session.Info, 0, len(objs))
	for _, o := range objs {
		si := o.info()
		if si.Hidden && !includeHidden {
			continue
		}
		out = append(out, si)
	}
	return out, nil
}

// Pending returns the permission requests waiting in every session (hidden
// ones included: a worker blocked on a permission must be answerable).
func (h *Host) Pending(ctx context.Context) ([]session.PermissionRequest, error) {
	all, err := h.List(ctx, true)
	if err != nil {
		return nil, err
	}
	var out []session.PermissionRequest
	for _, s := range all {
		out = append(out, s.Pending...)
	}
	return out, nil
}

// RespondPermission implements session.Browser. updatedInput is
// passed as the third argument only when given.
func (h *Host) RespondPermission(ctx context.Context, requestID string, decision session.PermissionDecision, updatedInput json.RawMessage) error {
	if !decision.Valid() {
		return fmt.Errorf("respond to %s: unknown decision %q", requestID, decision)
	}
	args := []any{requestID, string(decision)}
	if len(updatedInput) > 0 {
		args = append(args, updatedInput)
	}
	if err := h.call(ctx, invokeJS, nil, "respondToToolPermission", args); err != nil {
		return fmt.Errorf("respond to %s: %w", requestID, err)
	}
	return nil
}

// Interrupt implements session.Host.
func (h *Host) Interrupt(ctx context.Context, id session.ID) error {
	if err := h.call(ctx, invokeJS, nil, "interrupt", []any{string(id)}); err != nil {
		return fmt.Errorf("interrupt %s: %w", id, err)
	}
	return nil
}

// Archive implements session.Host.
func (h *Host) Archive(ctx context.Context, id session.ID) error {
	if err := h.call(ctx, invokeJS, nil, "archive", []any{string(id)}); err != nil {
		return fmt.Errorf("archive %s: %w", id, err)
	}
	return nil
}

func newUUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b[:])
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

// Unarchive shows an archived session again.
func (h *Host) Unarchive(ctx context.Context, id session.ID) error {
	return h.invoke(ctx, "unarchive", string(id))
}

// Stop stops the session's process (Running becomes false).
func (h *Host) Stop(ctx context.Context, id session.ID) error {
	return h.invoke(ctx, "stop", string(id))
}

// SetModel changes the model of the session.
func (h *Host) SetModel(ctx context.Context, id session.ID, model string) error {
	return h.invoke(ctx, "setModel", string(id), model)
}

// SetPermissionMode changes the permission mode of the session to one of
// session.PermissionModes.
func (h *Host) SetPermissionMode(ctx context.Context, id session.ID, mode string) error {
	if !session.ValidPermissionMode(mode) {
		return fmt.Errorf("set permission mode of %s: unknown mode %q", id, mode)
	}
	return h.invoke(ctx, "setPermissionMode", string(id), mode)
}

func (h *Host) invoke(ctx context.Context, method string, args ...any) error {
	if err := h.call(ctx, invokeJS, nil, method, args); err != nil {
		return fmt.Errorf("%s %v: %w", method, args[0], err)
	}
	return nil
}
