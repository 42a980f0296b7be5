package chrome

import (
	"context"
	"crypto/rand"
	"embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/chromedp/cdproto/cdp"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/cdproto/target"
)

//go:embed js/*.js
var scripts embed.FS

func script(name string) string {
	b, err := scripts.ReadFile("js/" + name)
	if err != nil {
		panic("chrome: missing embedded script " + name) // a build error, not a runtime one
	}
	return string(b)
}

var (
	probeJS  = script("probe.js")
	listenJS = script("listen.js")
	pollJS   = script("poll.js")
	unlistJS = script("unlisten.js")
)

// bindingPrefix starts the name of the CDP binding that page listeners call
// with notices; each connection adds its own random part, so two Baton
// connections to one page never take each other's listeners.
const bindingPrefix = "__batonNotice_"

// Config says where and how to connect.
type Config struct {
	// Endpoint is the DevTools HTTP endpoint; DefaultEndpoint when empty.
	Endpoint string
	// AllowRemote allows an endpoint that is not loopback (a warned
	// setting: the debug port has no authentication).
	AllowRemote bool
	// PagePatterns select page targets by URL part; DefaultPagePatterns
	// when empty.
	PagePatterns []string
	// PollInterval is the interval of the polling fallback used when the
	// page has no onOnEvent; 2s when zero.
	PollInterval time.Duration
	// OnStatus, if set, receives every status change. It runs on the
	// connection's supervisor goroutine and must return quickly.
	OnStatus func(Status)
	// Logger receives debug and warning logs; slog.Default when nil.
	Logger *slog.Logger
	// ProbeOnly attaches without installing listeners or polling (for
	// diagnostics that must not disturb the page).
	ProbeOnly bool
}

// State is the state of a connection.
type State int

// The states of a connection.
const (
	Disconnected State = iota
	Connected
	Reconnecting
)

func (s State) String() string {
	switch s {
	case Connected:
		return "connected"
	case Reconnecting:
		return "reconnecting"
	default:
		return "disconnected"
	}
}

// MarshalText makes a State a JSON string.
func (s State) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// Status is a connection status event.
type Status struct {
	State State `json:"state"`
	// Reason says why the connection is reconnecting or disconnected.
	Reason string `json:"reason,omitempty"`
	// Page is the URL of the attached page.
	Page string `json:"page,omitempty"`
}

// Notice is what the page listeners forward: a session and what changed
// ("message", "result", "updated", "permission").
type Notice struct {
	SessionID string `json:"sessionId"`
	Kind      string `json:"kind"`
}

// Probe is what the page reports about its LocalSessions object.
type Probe struct {
	Present    bool     `json:"present"`
	Methods    []string `json:"methods"`
	Version    string   `json:"version"`
	ReadyState string   `json:"readyState"`
}

// Has reports whether the probe found method.
func (p Probe) Has(method string) bool {
	for _, m := range p.Methods {
		if m == method {
			return true
		}
	}
	return false
}

// Traffic counts the bytes that crossed the CDP websocket.
type Traffic struct {
	In  int64 `json:"in"`
	Out int64 `json:"out"`
}

// Conn is a connection to one page of a browser, kept alive across page
// reloads and browser restarts. It is safe for concurrent use.
type Conn struct {
	cfg      Config
	binding  string
	endpoint *url.URL
	log      *slog.Logger

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	notices chan Notice // to the owner, coalesced
	raw     chan Notice // from the binding handler, never blocks the read loop

	mu      sync.Mutex
	att     *attachment
	ready   chan struct{} // closed while att is usable
	status  Status
	traffic Traffic // of attachments that ended
}

// attachment is one websocket plus one attached page session.
type attachment struct {
	c      *client
	s      *session
	target TargetInfo
	probe  Probe

	mu      sync.Mutex
	ctxID   string        // unique id of the page's default execution context
	ctxCh   chan struct{} // closed when ctxID is set
	liveCh  chan struct{} // closed when the listeners are installed in ctxID
	reload  chan struct{} // signalled when a new default context appears
	lost    chan struct{} // closed when the page target goes away
	lostMsg string
	once    sync.Once

	seenOnce  bool
	listeners listenResult
}

// Connect attaches to the page at cfg.Endpoint and starts the supervisor
// that reconnects when the page reloads or the browser goes away. The first
// attach must succeed: a dead endpoint is an *UnreachableError.
func Connect(ctx context.Context, cfg Config) (*Conn, error) {
	u, err := ParseEndpoint(cfg.Endpoint, cfg.AllowRemote)
	if err != nil {
		return nil, err
	}
	if cfg.PollInterval <= 0 {
		cfg.PollInterval = 2 * time.Second
	}
	log := cfg.Logger
	if log == nil {
		log = slog.Default()
	}
	var rnd [6]byte
	_, _ = rand.Read(rnd[:])
	c := &Conn{
		cfg:      cfg,
		binding:  bindingPrefix + hex.EncodeToString(rnd[:]),
		endpoint: u,
		log:      log.With("component", "chrome"),
		notices:  make(chan Notice, 64),
		raw:      make(chan Notice, 1024),
		ready:    make(chan struct{}),
	}
	att, err := c.attach(ctx)
	if err != nil {
		return nil, err
	}
	c.ctx, c.cancel = context.WithCancel(context.Background())
	c.setAttachment(att)
	c.wg.Go(c.coalesce)
	c.wg.Go(func() { c.supervise(att) })
	return c, nil
}

// Endpoint returns the http endpoint the connection uses.
func (c *Conn) Endpoint() string { return c.endpoint.String() }

// Notices delivers notices from the page listeners (or the polling
// fallback). Notices of one session and kind are coalesced while the
// receiver is busy.
func (c *Conn) Notices() <-chan Notice { return c.notices }

// Status returns the current status.
func (c *Conn) Status() Status {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.status
}

// Probe returns what the attached page reported about LocalSessions.
func (c *Conn) Probe() Probe {
	c.mu.Lock()
	att := c.att
	c.mu.Unlock()
	if att == nil {
		return Probe{}
	}
	att.mu.Lock()
	defer att.mu.Unlock()
	return att.probe
}

// Traffic returns the bytes that crossed the CDP websocket so far.
func (c *Conn) Traffic() Traffic {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := c.traffic
	if c.att != nil {
		t.In += c.att.c.bytesIn.Load()
		t.Out += c.att.c.bytesOut.Load()
	}
	return t
}

// Call runs the JavaScript function declaration fn on the page's global
// object with args passed as CDP call arguments (never pasted into code),
// awaits a returned promise and returns the result as JSON. A JavaScript
// exception becomes a *JSError. When the page reloads before the call ran,
// Call waits for the new page and runs it there; when it reloads during the
// call, Call returns an error wrapping ErrContextLost.
func (c *Conn) Call(ctx context.Context, fn string, args ...any) (json.RawMessage, error) {
	params := runtime.CallFunctionOnParams{
		FunctionDeclaration: fn,
		ReturnByValue:       new(true),
		AwaitPromise:        new(true),
		Silent:              new(true),
	}
	for _, a := range args {
		b, err := json.Marshal(a)
		if err != nil {
			return nil, fmt.Errorf("encode call argument: %w", err)
		}
		params.Arguments = append(params.Arguments, &runtime.CallArgument{Value: jsonv2.Value(b)})
	}
	for attempt := 0; ; attempt++ {
		att, ctxID, err := c.waitReady(ctx)
		if err != nil {
			return nil, err
		}
		params.UniqueContextID = ctxID
		res, err := cdp.Call(ctx, att.s, runtime.CallFunctionOn, params)
		if err != nil {
			var pe *ProtocolError
			if errors.As(err, &pe) && attempt < 5 && (strings.Contains(pe.Message, "Cannot find") || strings.Contains(pe.Message, "uniqueContextId not found")) {
				att.contextGone(ctxID) // the call never ran: wait for the new context
				continue
			}
			if errors.As(err, &pe) && attempt < 5 && strings.Contains(pe.Message, "Session with given id not found") {
				att.markLost("the page was closed") // the call never ran: wait for the next page
				continue
			}
			if errors.As(err, &pe) && (strings.Contains(pe.Message, "context was destroyed") || strings.Contains(pe.Message, "navigated or closed")) {
				att.contextGone(ctxID)
				return nil, fmt.Errorf("%w: %w", ErrContextLost, err)
			}
			return nil, err
		}
		if res.ExceptionDetails != nil {
			return nil, newJSError(res.ExceptionDetails)
		}
		if res.Result == nil || res.Result.Type == "undefined" {
			return json.RawMessage("null"), nil
		}
		return json.RawMessage(res.Result.Value), nil
	}
}

// callNow runs fn only if the page is usable right now.
func (c *Conn) callNow(ctx context.Context, fn string, args ...any) (json.RawMessage, error) {
	c.mu.Lock()
	att := c.att
	c.mu.Unlock()
	if att == nil {
		return nil, ErrConnectionLost
	}
	att.mu.Lock()
	live := att.liveCh
	att.mu.Unlock()
	select {
	case <-live:
	default:
		return nil, ErrContextLost
	}
	return c.Call(ctx, fn, args...)
}

// JSError is an exception thrown by page JavaScript.
type JSError struct {
	Message string
}

func (e *JSError) Error() string { return "page script: " + e.Message }

func newJSError(d *runtime.ExceptionDetails) *JSError {
	msg := d.Text
	if d.Exception != nil && d.Exception.Description != "" {
		msg = d.Exception.Description
		if i := strings.IndexByte(msg, '\n'); i >= 0 {
			msg = msg[:i]
		}
	}
	msg = strings.TrimPrefix(msg, "Uncaught ")
	msg = strings.TrimPrefix(msg, "Error: ")
	return &JSError{Message: msg}
}

// waitReady waits until the connection has a page with a live context.
func (c *Conn) waitReady(ctx context.Context) (*attachment, string, error) {
	for {
		c.mu.Lock()
		ready, att, st := c.ready, c.att, c.status
		closed := c.ctx != nil && c.ctx.Err() != nil
		c.mu.Unlock()
		if closed {
			return nil, "", ErrClosed
		}
		if att == nil {
			select {
			case <-ready:
				continue
			case <-ctx.Done():
				return nil, "", fmt.Errorf("%s (%s): %w", st.State, st.Reason, ctx.Err())
			}
		}
		att.mu.Lock()
		liveCh := att.liveCh
		att.mu.Unlock()
		select {
		case <-liveCh:
		case <-att.lost:
			continue
		case <-ctx.Done():
			return nil, "", fmt.Errorf("waiting for the page to load: %w", ctx.Err())
		}
		att.mu.Lock()
		id := att.ctxID
		att.mu.Unlock()
		if id != "" {
			return att, id, nil
		}
	}
}

// Close stops the supervisor and the poller, detaches from the page (which
// stays open) and waits for every goroutine, giving up with ctx.Err().
func (c *Conn) Close(ctx context.Context) error {
	if !c.cfg.ProbeOnly && c.ctx.Err() == nil {
		uctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		if _, err := c.callNow(uctx, unlistJS, c.binding); err != nil {
			c.log.Debug("remove listeners", "err", err)
		}
		cancel()
	}
	c.cancel()
	c.mu.Lock()
	att := c.att
	c.mu.Unlock()
	if att != nil {
		att.markLost("closed")
	}
	done := make(chan struct{})
	go func() { c.wg.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (c *Conn) setStatus(s Status) {
	c.mu.Lock()
	changed := c.status != s
	c.status = s
	c.mu.Unlock()
	if changed {
		c.log.Info("connection status", "state", s.State.String(), "reason", s.Reason, "page", s.Page)
		if c.cfg.OnStatus != nil {
			c.cfg.OnStatus(s)
		}
	}
}

func (c *Conn) setAttachment(att *attachment) {
	c.mu.Lock()
	c.att = att
	select {
	case <-c.ready:
	default:
		close(c.ready)
	}
	c.mu.Unlock()
	c.setStatus(Status{State: Connected, Page: att.target.URL})
}

// supervise owns the attachment: it re-installs the listeners after a page
// reload, runs the polling fallback, and reattaches with backoff when the
// page or the browser goes away.
func (c *Conn) supervise(att *attachment) {
	for {
		reason := c.serve(att)
		c.mu.Lock()
		c.traffic.In += att.c.bytesIn.Load()
		c.traffic.Out += att.c.bytesOut.Load()
		c.att = nil
		c.ready = make(chan struct{})
		c.mu.Unlock()
		att.c.close()
		if c.ctx.Err() != nil {
			c.setStatus(Status{State: Disconnected, Reason: "closed"})
			return
		}
		c.setStatus(Status{State: Reconnecting, Reason: reason})
		delay := 200 * time.Millisecond
		for {
			t := time.NewTimer(delay)
			select {
			case <-c.ctx.Done():
				t.Stop()
				c.setStatus(Status{State: Disconnected, Reason: "closed"})
				return
			case <-t.C:
			}
			actx, cancel := context.WithTimeout(c.ctx, 15*time.Second)
			next, err := c.attach(actx)
			cancel()
			if err == nil {
				att = next
				c.setAttachment(att)
				break
			}
			c.log.Debug("reattach failed", "err", err)
			c.setStatus(Status{State: Reconnecting, Reason: err.Error()})
			delay = min(delay*2, 5*time.Second)
		}
	}
}

// serve runs while att lives and returns why it ended.
func (c *Conn) serve(att *attachment) string {
	var pollStop context.CancelFunc
	defer func() {
		if pollStop != nil {
			pollStop()
		}
	}()
	startPoll := func(p listenResult) {
		if pollStop != nil {
			pollStop()
			pollStop = nil
		}
		if !p.Events {
			pctx, cancel := context.WithCancel(c.ctx)
			pollStop = cancel
			c.wg.Go(func() { c.poll(pctx, att) })
		}
	}
	att.mu.Lock()
	lr0 := att.listeners
	att.mu.Unlock()
	startPoll(lr0)
	for {
		select {
		case <-c.ctx.Done():
			return "closed"
		case <-att.c.done:
			return fmt.Sprintf("browser went away: %v", att.c.err)
		case <-att.lost:
			return att.lostMsg
		case <-att.reload:
			ctx, cancel := context.WithTimeout(c.ctx, 30*time.Second)
			lr, err := c.install(ctx, att)
			cancel()
			if err != nil {
				if c.ctx.Err() != nil {
					return "closed"
				}
				c.log.Warn("page reloaded but LocalSessions did not come back", "err", err)
				continue
			}
			c.log.Debug("page reloaded; listeners installed again", "events", lr.Events)
			startPoll(lr)
		}
	}
}

type listenResult struct {
	Events      bool `json:"events"`
	Permissions bool `json:"permissions"`
}

// attach discovers the page, attaches to it and installs the listeners.
func (c *Conn) attach(ctx context.Context) (*attachment, error) {
	v, err := Version(ctx, c.endpoint)
	if err != nil {
		return nil, err
	}
	ws, err := browserSocket(v, c.endpoint)
	if err != nil {
		return nil, err
	}
	targets, err := Targets(ctx, c.endpoint)
	if err != nil {
		return nil, err
	}
	pages := MatchPages(targets, c.cfg.PagePatterns)
	if len(pages) == 0 {
		return nil, &NoPageError{Endpoint: c.endpoint.String(), Patterns: c.patterns(), Targets: len(targets)}
	}
	cl, err := dial(ctx, ws, c.log)
	if err != nil {
		return nil, &UnreachableError{Endpoint: c.endpoint.String(), Err: err}
	}
	var chosen *attachment
	var fallback *attachment
	var errs []error
	for _, p := range pages {
		att, err := c.attachPage(ctx, cl, p)
		if err != nil {
			errs = append(errs, fmt.Errorf("page %s: %w", p.URL, err))
			continue
		}
		if att.probe.Present && chosen == nil {
			chosen = att
			continue
		}
		if fallback == nil && chosen == nil {
			fallback = att
			continue
		}
		c.detach(ctx, att)
	}
	if chosen == nil {
		chosen = fallback
	} else if fallback != nil {
		c.detach(ctx, fallback)
	}
	if chosen == nil {
		cl.close()
		return nil, fmt.Errorf("attach to %s: %w", c.endpoint, errors.Join(errs...))
	}
	if _, err := c.install(ctx, chosen); err != nil {
		cl.close()
		return nil, fmt.Errorf("install listeners: %w", err)
	}
	c.log.Debug("attached", "page", chosen.target.URL, "localSessions", chosen.probe.Present)
	return chosen, nil
}

func (c *Conn) patterns() []string {
	if len(c.cfg.PagePatterns) == 0 {
		return DefaultPagePatterns
	}
	return c.cfg.PagePatterns
}

func (c *Conn) detach(ctx context.Context, att *attachment) {
	att.c.forget(att.s.id)
	_, _ = cdp.Call(ctx, att.c.session(""), target.DetachFromTarget, target.DetachFromTargetParams{SessionID: att.s.id})
}

func (cl *client) session(id target.SessionID) *session { return &session{c: cl, id: id} }

// attachPage attaches to one page target, enables Runtime, waits for its
// default context and probes it.
func (c *Conn) attachPage(ctx context.Context, cl *client, p TargetInfo) (*attachment, error) {
	browser := cl.session("")
	res, err := cdp.Call(ctx, browser, target.AttachToTarget, target.AttachToTargetParams{TargetID: target.ID(p.ID), Flatten: new(true)})
	if err != nil {
		return nil, err
	}
	att := &attachment{
		c:      cl,
		s:      cl.session(res.SessionID),
		target: p,
		ctxCh:  make(chan struct{}),
		liveCh: make(chan struct{}),
		reload: make(chan struct{}, 1),
		lost:   make(chan struct{}),
	}
	sid := res.SessionID
	cl.handle(sid, runtime.ExecutionContextCreated.Method, func(v jsonv2.Value) {
		var ev runtime.EventExecutionContextCreated
		if jsonv2.Unmarshal(v, &ev) != nil || ev.Context == nil {
			return
		}
		var aux struct {
			IsDefault bool   `json:"isDefault"`
			FrameID   string `json:"frameId"`
		}
		_ = json.Unmarshal(ev.Context.AuxData, &aux)
		if !aux.IsDefault || aux.FrameID != p.ID {
			return
		}
		att.setContext(ev.Context.UniqueID)
	})
	cl.handle(sid, runtime.ExecutionContextDestroyed.Method, func(v jsonv2.Value) {
		var ev runtime.EventExecutionContextDestroyed
		if jsonv2.Unmarshal(v, &ev) == nil {
			att.contextGone(ev.ExecutionContextUniqueID)
		}
	})
	cl.handle(sid, runtime.ExecutionContextsCleared.Method, func(jsonv2.Value) { att.contextGone("") })
	cl.handle(sid, runtime.BindingCalled.Method, func(v jsonv2.Value) {
		var ev runtime.EventBindingCalled
		if jsonv2.Unmarshal(v, &ev) != nil || ev.Name != c.binding {
			return
		}
		var n Notice
		if json.Unmarshal([]byte(ev.Payload), &n) != nil || n.SessionID == "" {
			return
		}
		select {
		case c.raw <- n:
		default: // the coalescer is far behind; the poll of the owner catches up
		}
	})
	cl.handle("", target.DetachedFromTarget.Method, func(v jsonv2.Value) {
		var ev target.EventDetachedFromTarget
		if jsonv2.Unmarshal(v, &ev) == nil && ev.SessionID == sid {
			att.markLost("the page was closed or replaced")
		}
	})
	if _, err := cdp.Call(ctx, att.s, runtime.Enable, cdp.Empty{}); err != nil {
		return nil, err
	}
	if !c.cfg.ProbeOnly {
		if _, err := cdp.Call(ctx, att.s, runtime.AddBinding, runtime.AddBindingParams{Name: c.binding}); err != nil {
			return nil, err
		}
	}
	// A page that is still loading replaces its context between the event
	// and the probe ("uniqueContextId not found"): wait for the next one.
	for {
		att.mu.Lock()
		ctxCh := att.ctxCh
		att.mu.Unlock()
		select {
		case <-ctxCh:
		case <-ctx.Done():
			return nil, fmt.Errorf("page has no JavaScript context: %w", ctx.Err())
		}
		att.probe, err = c.probeAtt(ctx, att)
		if err == nil {
			return att, nil
		}
		if !contextReplaced(err) {
			return nil, err
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("page has no JavaScript context: %w", ctx.Err())
		case <-time.After(25 * time.Millisecond):
		}
	}
}

// contextReplaced reports whether a call failed because the page dropped
// the JavaScript context it was made in (a navigation or reload).
func contextReplaced(err error) bool {
	msg := err.Error()
	for _, s := range []string{"uniqueContextId not found", "Cannot find context", "Execution context was destroyed", "Cannot find default execution context"} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}

func (c *Conn) probeAtt(ctx context.Context, att *attachment) (Probe, error) {
	att.mu.Lock()
	id := att.ctxID
	att.mu.Unlock()
	res, err := cdp.Call(ctx, att.s, runtime.CallFunctionOn, runtime.CallFunctionOnParams{
		FunctionDeclaration: probeJS, UniqueContextID: id, ReturnByValue: new(true), Silent: new(true),
	})
	if err != nil {
		return Probe{}, err
	}
	if res.ExceptionDetails != nil {
		return Probe{}, newJSError(res.ExceptionDetails)
	}
	var p Probe
	if err := json.Unmarshal(res.Result.Value, &p); err != nil {
		return Probe{}, fmt.Errorf("decode probe: %w", err)
	}
	return p, nil
}

// install waits until the page has LocalSessions (bounded by ctx, and by a
// grace period once the document has loaded, so a page without it still
// gets through and its calls fail naming what is missing), installs the
// listeners and opens the page to calls.
func (c *Conn) install(ctx context.Context, att *attachment) (listenResult, error) {
	var lr listenResult
	var loadedAt time.Time
	for {
		att.mu.Lock()
		ctxCh := att.ctxCh
		att.mu.Unlock()
		select {
		case <-ctxCh:
		case <-ctx.Done():
			return lr, ctx.Err()
		case <-att.lost:
			return lr, errors.New(att.lostMsg)
		}
		p, err := c.probeAtt(ctx, att)
		if err == nil {
			att.mu.Lock()
			att.probe = p
			att.mu.Unlock()
			if p.Present {
				break
			}
			if p.ReadyState == "complete" {
				if loadedAt.IsZero() {
					loadedAt = time.Now()
				} else if time.Since(loadedAt) > 2*time.Second {
					break
				}
			}
		}
		select {
		case <-ctx.Done():
			return lr, fmt.Errorf("waiting for LocalSessions: %w", ctx.Err())
		case <-time.After(25 * time.Millisecond):
		}
	}
	att.mu.Lock()
	id := att.ctxID
	att.mu.Unlock()
	if c.cfg.ProbeOnly {
		lr.Events = true // nothing to poll for
	} else {
		arg, _ := json.Marshal(c.binding)
		res, err := cdp.Call(ctx, att.s, runtime.CallFunctionOn, runtime.CallFunctionOnParams{
			FunctionDeclaration: listenJS, UniqueContextID: id, ReturnByValue: new(true), Silent: new(true),
			Arguments: []*runtime.CallArgument{{Value: jsonv2.Value(arg)}},
		})
		if err != nil {
			return lr, err
		}
		if res.ExceptionDetails != nil {
			return lr, newJSError(res.ExceptionDetails)
		}
		if err := json.Unmarshal(res.Result.Value, &lr); err != nil {
			return lr, fmt.Errorf("decode listener result: %w", err)
		}
	}
	att.mu.Lock()
	att.listeners = lr
	if att.ctxID == id {
		select {
		case <-att.liveCh:
		default:
			close(att.liveCh)
		}
	}
	att.mu.Unlock()
	return lr, nil
}

// poll is the fallback when the page has no onOnEvent: it compares session
// fingerprints at the configured interval and sends "updated" notices.
func (c *Conn) poll(ctx context.Context, att *attachment) {
	t := time.NewTicker(c.cfg.PollInterval)
	defer t.Stop()
	last := map[string]string{}
	for {
		cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		raw, err := c.Call(cctx, pollJS)
		cancel()
		if err == nil {
			var rows [][2]string
			if json.Unmarshal(raw, &rows) == nil {
				seen := map[string]string{}
				for _, r := range rows {
					seen[r[0]] = r[1]
					if last[r[0]] != r[1] {
						select {
						case c.raw <- Notice{SessionID: r[0], Kind: "updated"}:
						default:
						}
					}
				}
				last = seen
			}
		} else if ctx.Err() == nil {
			c.log.Debug("poll failed", "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-att.lost:
			return
		case <-t.C:
		}
	}
}

// coalesce moves notices from the binding handler to the owner, merging
// repeats of one session and kind while the owner is busy.
func (c *Conn) coalesce() {
	var queue []Notice
	queued := map[Notice]bool{}
	for {
		var out chan Notice
		var head Notice
		if len(queue) > 0 {
			out, head = c.notices, queue[0]
		}
		select {
		case <-c.ctx.Done():
			return
		case n := <-c.raw:
			if !queued[n] {
				queued[n] = true
				queue = append(queue, n)
			}
		case out <- head:
			delete(queued, head)
			queue = queue[1:]
		}
	}
}

func (a *attachment) setContext(id string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	first := !a.seenOnce
	a.ctxID = id
	select {
	case <-a.ctxCh:
	default:
		close(a.ctxCh)
	}
	if !first {
		select {
		case a.reload <- struct{}{}:
		default:
		}
	}
	a.seenOnce = true
}

// contextGone forgets the context id (all of them when id is empty).
func (a *attachment) contextGone(id string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if id != "" && id != a.ctxID {
		return
	}
	a.ctxID = ""
	select {
	case <-a.ctxCh:
		a.ctxCh = make(chan struct{})
	default:
	}
	select {
	case <-a.liveCh:
		a.liveCh = make(chan struct{})
	default:
	}
}

func (a *attachment) markLost(msg string) {
	a.once.Do(func() {
		a.lostMsg = msg
		close(a.lost)
	})
}

// NoPageError says the browser has no page that matches the patterns.
type NoPageError struct {
	Endpoint string
	Patterns []string
	Targets  int
}

func (e *NoPageError) Error() string {
	return fmt.Sprintf("no page at %s has a URL containing %s (%d targets)", e.Endpoint, strings.Join(e.Patterns, " or "), e.Targets)
}

func (e *NoPageError) Unwrap() error { return ErrNoPage }
