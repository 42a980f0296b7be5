package claude

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/baton-app/baton/backend/chrome"
	"github.com/baton-app/baton/backend/session"
)

// The kinds of endpoint (Options.EndpointKind).
const (
	EndpointAuto      = ""
	EndpointPage      = "page"
	EndpointInspector = "inspector"
)

// caller runs the page functions: a *chrome.Conn on a page, or a
// *chrome.Inspector through the app's main process.
type caller interface {
	Call(ctx context.Context, fn string, args ...any) (json.RawMessage, error)
	CallNow(ctx context.Context, fn string, args ...any) (json.RawMessage, error)
	Close(ctx context.Context) error
}

// page is the URL of the page the link drives.
func (l *link) page() string {
	if l.insp != nil {
		return l.insp.Page()
	}
	return l.conn.Status().Page
}

// dialLink connects by the endpoint's kind: a Node inspector when asked
// for or when the endpoint lists a target of type "node", else a page.
func dialLink(ctx context.Context, cfg chrome.Config, kind string, o linkOptions) (*link, error) {
	switch kind {
	case EndpointPage:
		return connect(ctx, cfg, o)
	case EndpointInspector:
		return connectInspector(ctx, cfg, o)
	case EndpointAuto:
	default:
		return nil, fmt.Errorf("unknown endpoint kind %q (page, inspector, or empty to detect)", kind)
	}
	if u, err := chrome.ParseEndpoint(cfg.Endpoint, cfg.AllowRemote); err == nil {
		if node, _ := chrome.IsInspector(ctx, u); node {
			return connectInspector(ctx, cfg, o)
		}
	}
	return connect(ctx, cfg, o)
}

// connectInspector makes a link through the app's main process: it probes
// LocalSessions in the window once and, the window's events having no way
// to Baton through the inspector, polls for changes.
func connectInspector(ctx context.Context, cfg chrome.Config, o linkOptions) (*link, error) {
	if len(cfg.PagePatterns) == 0 {
		cfg.PagePatterns = PagePatterns
	}
	if o.PollInterval <= 0 {
		o.PollInterval = 2 * time.Second
	}
	log := o.Logger
	if log == nil {
		log = slog.Default()
	}
	if cfg.Logger == nil {
		cfg.Logger = log
	}
	in, err := chrome.DialInspector(ctx, cfg)
	if err != nil {
		return nil, err
	}
	l := &link{connected: make(chan struct{}), interval: o.PollInterval, log: log.With("component", "claude"),
		raw: make(chan session.Notice, 1024), out: o.Notices, call: in, insp: in}
	if l.out == nil {
		l.own = make(chan session.Notice, 64)
		l.out = l.own
	}
	l.ctx, l.cancel = context.WithCancel(context.Background())
	close(l.connected)
	raw, err := in.Call(ctx, probeJS)
	var pr Probe
	if err == nil {
		err = json.Unmarshal(raw, &pr)
	}
	if err != nil {
		l.cancel()
		return nil, errors.Join(fmt.Errorf("probe the window through the main process: %w", err), in.Close(ctx))
	}
	l.mu.Lock()
	l.probe = pr
	l.mu.Unlock()
	if !o.ProbeOnly {
		l.wg.Go(l.coalesce)
		l.setPolling(true)
	}
	return l, nil
}
