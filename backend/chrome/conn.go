package chrome

import (
	"context"
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

// Config says where and how to connect.
type Config struct {
	// Endpoint is the DevTools HTTP endpoint; DefaultEndpoint when empty.
	Endpoint string
	// AllowRemote allows an endpoint that is not loopback (a warned
	// setting: the debug port has no authentication).
	AllowRemote bool
	// PagePatterns select page targets by URL part; at least one is needed.
	PagePatterns []string
	// OnStatus, if set, receives every status change. It runs on the
	// connection's supervisor goroutine and must return quickly.
	OnStatus func(Status)
	// Logger receives debug and warning logs; slog.Default when nil.
	Logger *slog.Logger
	// Bindings are the CDP bindings added to every attached page: when the
	// page calls globalThis[name](payload), the function of that name
	// receives payload. It runs on the connection's read loop: it must
	// return at once and never block.
	Bindings map[string]func(payload string)
	// Prefer, when set, is asked about every matching page once it has a
	// JavaScript context: the connection attaches to the first page it
	// prefers, else to the first page that attached at all.
	Prefer func(ctx context.Context, p *Page) (bool, error)
	// OnAttach, when set, runs when a page is attached and again after
	// each reload of it, before Call is let through to the page; it may
	// call the page with p.Call. When it fails on the first attach, Connect
	// fails; after a reload the page stays closed to calls until the next
	// reload or reattach.
	OnAttach func(ctx context.Context, p *Page) error
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

// Traffic counts the bytes that crossed the CDP websocket.
type Traffic struct {
	In  int64 `json:"in"`
	Out int64 `json:"out"`
}

// Conn is a connection to one page of a browser, kept alive across page
// reloads and browser restarts. It is safe for concurrent use.
type Conn struct {
	cfg      Config
	endpoint *url.URL
	log      *slog.Logger

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

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

	mu      sync.Mutex
	ctxID   string        // unique id of the page's default execution context
	ctxCh   chan struct{} // closed when ctxID is set
	liveCh  chan struct{} // closed when OnAttach has run in ctxID
	reload  chan struct{} // signalled when a new default context appears
	lost    chan struct{} // closed when the page target goes away
	lostMsg string
	once    sync.Once

	seenOnce bool
}

// Connect attaches to the page at cfg.Endpoint and starts the supervisor
// that reconnects when the page reloads or the browser goes away. The first
// attach must succeed: a dead endpoint is an *UnreachableError.
func Connect(ctx context.Context, cfg Config) (*Conn, error) {
	u, err := ParseEndpoint(cfg.Endpoint, cfg.AllowRemote)
	if err != nil {
		return nil, err
	}
	log := cfg.Logger
	if log == nil {
		log = slog.Default()
	}
	c := &Conn{
		cfg:      cfg,
		endpoint: u,
		log:      log.With("component", "chrome"),
		ready:    make(chan struct{}),
	}
	att, err := c.attach(ctx)
	if err != nil {
		return nil, err
	}
	c.ctx, c.cancel = context.WithCancel(context.Background())
	c.setAttachment(att)
	c.wg.Go(func() { c.supervise(att) })
	return c, nil
}

// Endpoint returns the http endpoint the connection uses.
func (c *Conn) Endpoint() string { return c.endpoint.String() }

// Status returns the current status.
func (c *Conn) Status() Status {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.status
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
	params, err := callParams(fn, args)
	if err != nil {
		return nil, err
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
		return callResult(res)
	}
}

// callParams makes the Runtime.callFunctionOn parameters of fn with args
// passed as call arguments.
func callParams(fn string, args []any) (runtime.CallFunctionOnParams, error) {
	params := runtime.CallFunctionOnParams{
		FunctionDeclaration: fn,
		ReturnByValue:       new(true),
		AwaitPromise:        new(true),
		Silent:              new(true),
	}
	for _, a := range args {
		b, err := json.Marshal(a)
		if err != nil {
			return params, fmt.Errorf("encode call argument: %w", err)
		}
		params.Arguments = append(params.Arguments, &runtime.CallArgument{Value: jsonv2.Value(b)})
	}
	return params, nil
}

// callResult turns the answer of Runtime.callFunctionOn into JSON, or into
// a *JSError for an exception.
func callResult(res runtime.CallFunctionOnResult) (json.RawMessage, error) {
	if res.ExceptionDetails != nil {
		return nil, newJSError(res.ExceptionDetails)
	}
	if res.Result == nil || res.Result.Type == "undefined" {
		return json.RawMessage("null"), nil
	}
	return json.RawMessage(res.Result.Value), nil
}

// CallNow runs fn like Call, but only if the page is usable right now:
// otherwise it fails at once with ErrConnectionLost or ErrContextLost.
func (c *Conn) CallNow(ctx context.Context, fn string, args ...any) (json.RawMessage, error) {
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

// Close stops the supervisor, detaches from the page (which stays open)
// and waits for every goroutine, giving up with ctx.Err().
func (c *Conn) Close(ctx context.Context) error {
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

// supervise owns the attachment: it runs OnAttach again after a page
// reload, and reattaches with backoff when the page or the browser goes
// away.
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
			err := c.install(ctx, att)
			cancel()
			if err != nil {
				if c.ctx.Err() != nil {
					return "closed"
				}
				c.log.Warn("page reloaded but could not be set up again", "err", err)
				continue
			}
			c.log.Debug("page reloaded and set up again")
		}
	}
}

// attach discovers the page, attaches to it and runs OnAttach.
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
		att, preferred, err := c.attachPage(ctx, cl, p)
		if err != nil {
			errs = append(errs, fmt.Errorf("page %s: %w", p.URL, err))
			continue
		}
		if preferred && chosen == nil {
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
	if err := c.install(ctx, chosen); err != nil {
		cl.close()
		return nil, fmt.Errorf("set up page %s: %w", chosen.target.URL, err)
	}
	c.log.Debug("attached", "page", chosen.target.URL)
	return chosen, nil
}

func (c *Conn) patterns() []string { return c.cfg.PagePatterns }

func (c *Conn) detach(ctx context.Context, att *attachment) {
	att.c.forget(att.s.id)
	_, _ = cdp.Call(ctx, att.c.session(""), target.DetachFromTarget, target.DetachFromTargetParams{SessionID: att.s.id})
}

func (cl *client) session(id target.SessionID) *session { return &session{c: cl, id: id} }

// attachPage attaches to one page target, enables Runtime, adds the
// bindings, waits for its default context and asks Prefer about it.
func (c *Conn) attachPage(ctx context.Context, cl *client, p TargetInfo) (*attachment, bool, error) {
	browser := cl.session("")
	res, err := cdp.Call(ctx, browser, target.AttachToTarget, target.AttachToTargetParams{TargetID: target.ID(p.ID), Flatten: new(true)})
	if err != nil {
		return nil, false, err
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
		if jsonv2.Unmarshal(v, &ev) != nil {
			return
		}
		if fn := c.cfg.Bindings[ev.Name]; fn != nil {
			fn(ev.Payload)
		}
	})
	cl.handle("", target.DetachedFromTarget.Method, func(v jsonv2.Value) {
		var ev target.EventDetachedFromTarget
		if jsonv2.Unmarshal(v, &ev) == nil && ev.SessionID == sid {
			att.markLost("the page was closed or replaced")
		}
	})
	if _, err := cdp.Call(ctx, att.s, runtime.Enable, cdp.Empty{}); err != nil {
		return nil, false, err
	}
	for name := range c.cfg.Bindings {
		if _, err := cdp.Call(ctx, att.s, runtime.AddBinding, runtime.AddBindingParams{Name: name}); err != nil {
			return nil, false, err
		}
	}
	// A page that is still loading replaces its context between the event
	// and the first call ("uniqueContextId not found"): wait for the next one.
	page := &Page{att: att}
	for {
		att.mu.Lock()
		ctxCh := att.ctxCh
		att.mu.Unlock()
		select {
		case <-ctxCh:
		case <-ctx.Done():
			return nil, false, fmt.Errorf("page has no JavaScript context: %w", ctx.Err())
		}
		if c.cfg.Prefer == nil {
			return att, false, nil
		}
		preferred, err := c.cfg.Prefer(ctx, page)
		if err == nil {
			return att, preferred, nil
		}
		if !ContextReplaced(err) {
			return nil, false, err
		}
		select {
		case <-ctx.Done():
			return nil, false, fmt.Errorf("page has no JavaScript context: %w", ctx.Err())
		case <-time.After(25 * time.Millisecond):
		}
	}
}

// ContextReplaced reports whether a call failed because the page dropped
// the JavaScript context it was made in (a navigation or reload).
func ContextReplaced(err error) bool {
	msg := err.Error()
	for _, s := range []string{"uniqueContextId not found", "Cannot find context", "Execution context was destroyed", "Cannot find default execution context"} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}

// Page is one attached page, as OnAttach and Prefer see it: its calls run
// in the page's current JavaScript context at once, without waiting for the
// connection to be ready (it is not, while OnAttach runs).
type Page struct {
	att *attachment

	mu   sync.Mutex
	last string // the context of the last call that ran
}

// URL is the page's address.
func (p *Page) URL() string { return p.att.target.URL }

// Call runs the function declaration fn with args, as Conn.Call does, in
// the page's current context; it waits only for the page to have one.
func (p *Page) Call(ctx context.Context, fn string, args ...any) (json.RawMessage, error) {
	att := p.att
	att.mu.Lock()
	ctxCh := att.ctxCh
	att.mu.Unlock()
	select {
	case <-ctxCh:
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-att.lost:
		return nil, fmt.Errorf("%w: %s", ErrConnectionLost, att.lostMsg)
	}
	att.mu.Lock()
	id := att.ctxID
	att.mu.Unlock()
	params, err := callParams(fn, args)
	if err != nil {
		return nil, err
	}
	params.UniqueContextID = id
	res, err := cdp.Call(ctx, att.s, runtime.CallFunctionOn, params)
	if err != nil {
		return nil, err
	}
	p.mu.Lock()
	p.last = id
	p.mu.Unlock()
	return callResult(res)
}

// install runs OnAttach on att and opens the page to calls, when the
// context it ran in is still the page's.
func (c *Conn) install(ctx context.Context, att *attachment) error {
	page := &Page{att: att}
	if c.cfg.OnAttach != nil {
		if err := c.cfg.OnAttach(ctx, page); err != nil {
			return err
		}
	} else if _, err := page.Call(ctx, "function () {}"); err != nil {
		return err
	}
	page.mu.Lock()
	id := page.last
	page.mu.Unlock()
	att.mu.Lock()
	if att.ctxID == id && id != "" {
		select {
		case <-att.liveCh:
		default:
			close(att.liveCh)
		}
	}
	att.mu.Unlock()
	return nil
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
