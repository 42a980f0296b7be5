package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/baton-app/baton/backend/session"
)

// Hosts that die: every host call has a deadline; a host whose connection
// can be lost (session.HostLink) says so at once, and its calls in flight
// end with session.ErrHostLost. A run that works on the host then shows
// "reconnecting" (link.go) and takes no step until the link is back.

// The default bounds of host calls and of a reconnect.
const (
	DefaultReconnectFor = 2 * time.Minute
	// defaultQuickWait bounds the calls that only look (Session, Read) and
	// those that stop a session (Interrupt, Archive).
	defaultQuickWait = 15 * time.Second
)

// guardHost is the engine's view of its host: every call gets a deadline,
// fails at once while the link is down, and is cut when the link goes down
// while it runs; such errors wrap ErrHostLost.
type guardHost struct {
	inner session.Host
	link  session.HostLink // nil: the host's connection is never lost
	wait  time.Duration
	quick time.Duration
}

// TakesSystemPrompt passes the wrapped host's answer on (SystemPrompter).
func (g *guardHost) TakesSystemPrompt() bool { return session.TakesSystemPrompt(g.inner) }

func newGuardHost(h session.Host, wait, quick time.Duration) *guardHost {
	g := &guardHost{inner: h, wait: wait, quick: min(quick, wait)}
	g.link, _ = h.(session.HostLink)
	return g
}

func (g *guardHost) state() session.LinkState {
	if g.link == nil {
		return session.LinkState{Up: true}
	}
	return g.link.Link()
}

// begin returns the context of one call, or ErrHostLost while the link is
// down.
func (g *guardHost) begin(ctx context.Context, d time.Duration) (context.Context, func(), error) {
	st := g.state()
	if !st.Up {
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
				now := g.state()
				if !now.Up {
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
func (g *guardHost) end(ctx context.Context, err error) error {
	if err == nil || errors.Is(err, session.ErrHostLost) {
		return err
	}
	if cause := context.Cause(ctx); errors.Is(cause, session.ErrHostLost) {
		return fmt.Errorf("%w: %w", cause, err)
	}
	if st := g.state(); !st.Up {
		return fmt.Errorf("%w: %w", session.LostError(st.Reason), err)
	}
	return err
}

func (g *guardHost) Start(ctx context.Context, opts session.StartOptions) (session.ID, error) {
	cctx, done, err := g.begin(ctx, g.wait)
	if err != nil {
		return "", err
	}
	defer done()
	id, err := g.inner.Start(cctx, opts)
	return id, g.end(cctx, err)
}

func (g *guardHost) Send(ctx context.Context, id session.ID, text string) error {
	cctx, done, err := g.begin(ctx, g.wait)
	if err != nil {
		return err
	}
	defer done()
	return g.end(cctx, g.inner.Send(cctx, id, text))
}

func (g *guardHost) Read(ctx context.Context, id session.ID, c session.Cursor) (session.Batch, error) {
	cctx, done, err := g.begin(ctx, g.quick)
	if err != nil {
		return session.Batch{}, err
	}
	defer done()
	b, err := g.inner.Read(cctx, id, c)
	return b, g.end(cctx, err)
}

func (g *guardHost) Session(ctx context.Context, id session.ID) (session.Info, error) {
	cctx, done, err := g.begin(ctx, g.quick)
	if err != nil {
		return session.Info{}, err
	}
	defer done()
	info, err := g.inner.Session(cctx, id)
	return info, g.end(cctx, err)
}

func (g *guardHost) Interrupt(ctx context.Context, id session.ID) error {
	cctx, done, err := g.begin(ctx, g.quick)
	if err != nil {
		return err
	}
	defer done()
	return g.end(cctx, g.inner.Interrupt(cctx, id))
}

func (g *guardHost) Archive(ctx context.Context, id session.ID) error {
	cctx, done, err := g.begin(ctx, g.quick)
	if err != nil {
		return err
	}
	defer done()
	return g.end(cctx, g.inner.Archive(cctx, id))
}

func (g *guardHost) Notices() <-chan session.Notice { return g.inner.Notices() }

// browser is the host's session.Browser, with the same guard, or nil.
func (g *guardHost) browser() session.Browser {
	b, ok := g.inner.(session.Browser)
	if !ok {
		return nil
	}
	return guardBrowser{g, b}
}

type guardBrowser struct {
	g *guardHost
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
