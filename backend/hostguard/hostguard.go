// Package hostguard bounds the calls to a session host: every call has a
// deadline (a shorter one for the calls that only look or stop a session),
// fails at once while the host's connection (session.HostLink) is down, and
// is cut when the link goes down while it runs; such errors wrap
// session.ErrHostLost. A link that is down because only the model cannot
// be reached (LinkState.Model) leaves the calls alone: the host answers.
// The engine talks to its host only through a Host of this package.
package hostguard

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/baton-app/baton/backend/session"
)

// Host is a session host whose calls are bounded: Start and Send (and
// answers to permission requests) by wait, the others by quick.
type Host struct {
	inner session.Host
	link  session.HostLink // nil: the host's connection is never lost
	wait  time.Duration
	quick time.Duration
}

// New returns host h with its calls bounded by wait, those that only look
// or stop by the shorter of quick and wait.
func New(h session.Host, wait, quick time.Duration) *Host {
	g := &Host{inner: h, wait: wait, quick: min(quick, wait)}
	g.link, _ = h.(session.HostLink)
	return g
}

// Inner is the host the guard bounds.
func (g *Host) Inner() session.Host { return g.inner }

// TakesSystemPrompt passes the bounded host's answer on
// (session.SystemPrompter).
func (g *Host) TakesSystemPrompt() bool { return session.TakesSystemPrompt(g.inner) }

// Link is the state of the host's connection (always up for a host whose
// connection is never lost).
func (g *Host) Link() session.LinkState {
	if g.link == nil {
		return session.LinkState{Up: true}
	}
	return g.link.Link()
}

// begin returns the context of one call, or ErrHostLost while the link is
// down.
func (g *Host) begin(ctx context.Context, d time.Duration) (context.Context, func(), error) {
	st := g.Link()
	if st.Refuses() {
		return nil, nil, session.LostError(st.Reason)
	}
	cctx, cancelCause := context.WithCancelCause(ctx)
	tctx, cancelTimeout := context.WithTimeout(cctx, d)
	stop := make(chan struct{})
	if st.Changed != nil {
		go func() {
			changed := st.Changed
			for {
				select {
				case <-changed:
				case <-stop:
					return
				}
				now := g.Link()
				if now.Refuses() {
					cancelCause(session.LostError(now.Reason))
					return
				}
				changed = now.Changed
				if changed == nil {
					return
				}
			}
		}()
	}
	return tctx, func() { close(stop); cancelTimeout(); cancelCause(nil) }, nil
}

// end wraps a call's error in ErrHostLost when the link went down.
func (g *Host) end(ctx context.Context, err error) error {
	if err == nil || errors.Is(err, session.ErrHostLost) {
		return err
	}
	if cause := context.Cause(ctx); errors.Is(cause, session.ErrHostLost) {
		return fmt.Errorf("%w: %w", cause, err)
	}
	if st := g.Link(); st.Refuses() {
		return fmt.Errorf("%w: %w", session.LostError(st.Reason), err)
	}
	return err
}

func (g *Host) Start(ctx context.Context, opts session.StartOptions) (session.ID, error) {
	cctx, done, err := g.begin(ctx, g.wait)
	if err != nil {
		return "", err
	}
	defer done()
	id, err := g.inner.Start(cctx, opts)
	return id, g.end(cctx, err)
}

func (g *Host) Send(ctx context.Context, id session.ID, text string) error {
	cctx, done, err := g.begin(ctx, g.wait)
	if err != nil {
		return err
	}
	defer done()
	return g.end(cctx, g.inner.Send(cctx, id, text))
}

func (g *Host) Read(ctx context.Context, id session.ID, c session.Cursor) (session.Batch, error) {
	cctx, done, err := g.begin(ctx, g.quick)
	if err != nil {
		return session.Batch{}, err
	}
	defer done()
	b, err := g.inner.Read(cctx, id, c)
	return b, g.end(cctx, err)
}

func (g *Host) Session(ctx context.Context, id session.ID) (session.Info, error) {
	cctx, done, err := g.begin(ctx, g.quick)
	if err != nil {
		return session.Info{}, err
	}
	defer done()
	info, err := g.inner.Session(cctx, id)
	return info, g.end(cctx, err)
}

func (g *Host) Interrupt(ctx context.Context, id session.ID) error {
	cctx, done, err := g.begin(ctx, g.quick)
	if err != nil {
		return err
	}
	defer done()
	return g.end(cctx, g.inner.Interrupt(cctx, id))
}

func (g *Host) Archive(ctx context.Context, id session.ID) error {
	cctx, done, err := g.begin(ctx, g.quick)
	if err != nil {
		return err
	}
	defer done()
	return g.end(cctx, g.inner.Archive(cctx, id))
}

func (g *Host) Notices() <-chan session.Notice { return g.inner.Notices() }

// Browser is the host's session.Browser, with the same bounds, or nil.
func (g *Host) Browser() session.Browser {
	b, ok := g.inner.(session.Browser)
	if !ok {
		return nil
	}
	return guardBrowser{g, b}
}

type guardBrowser struct {
	g *Host
	b session.Browser
}

func (gb guardBrowser) List(ctx context.Context, includeHidden bool) ([]session.Info, error) {
	cctx, done, err := gb.g.begin(ctx, gb.g.quick)
	if err != nil {
		return nil, err
	}
	defer done()
	l, err := gb.b.List(cctx, includeHidden)
	return l, gb.g.end(cctx, err)
}

func (gb guardBrowser) RespondPermission(ctx context.Context, requestID string, d session.PermissionDecision, input json.RawMessage) error {
	cctx, done, err := gb.g.begin(ctx, gb.g.wait)
	if err != nil {
		return err
	}
	defer done()
	return gb.g.end(cctx, gb.b.RespondPermission(cctx, requestID, d, input))
}

// Warm passes on to a host that warms sessions (session.Warmer), bounded
// like the calls that only look; for any other host it does nothing.
func (g *Host) Warm(ctx context.Context, opts session.StartOptions) (session.ID, error) {
	w, ok := g.inner.(session.Warmer)
	if !ok {
		return "", nil
	}
	cctx, done, err := g.begin(ctx, g.quick)
	if err != nil {
		return "", err
	}
	defer done()
	id, err := w.Warm(cctx, opts)
	return id, g.end(cctx, err)
}

// Cool passes on to a host that warms sessions (session.Warmer).
func (g *Host) Cool(id session.ID) {
	if w, ok := g.inner.(session.Warmer); ok {
		w.Cool(id)
	}
}

// Room is the host's session.Roomer answer, or room for any number of
// sessions when it has no memory budget.
func (g *Host) Room() session.Room {
	if r, ok := g.inner.(session.Roomer); ok {
		return r.Room()
	}
	return session.Room{}
}
