package claude

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/baton-app/baton/backend/chrome"
	"github.com/baton-app/baton/backend/session"
)

// SimulatorPattern is the URL part of the simulator's page ("baton sim").
const SimulatorPattern = "/baton-simulator/"

// PagePatterns are the URL parts that mark a Claude Desktop page (and the
// simulator's page, so "baton sim" stands in for Claude Desktop); Dial uses
// them when the configuration names none.
var PagePatterns = []string{"claude.ai", "app://localhost", "https://claude.", SimulatorPattern}

// bindingPrefix starts the name of the CDP binding that the page listeners
// call with notices; each connection adds its own random part, so two Baton
// connections to one page never take each other's listeners.
const bindingPrefix = "__batonNotice_"

// Probe is what the page reports about its LocalSessions object.
type Probe struct {
	Present    bool     `json:"present"`
	Methods    []string `json:"methods"`
	Version    string   `json:"version"`
	ReadyState string   `json:"readyState"`
}

// Has reports whether the probe found method.
func (p Probe) Has(method string) bool { return slices.Contains(p.Methods, method) }

// listenResult is what listen.js installed.
type listenResult struct {
	Events      bool `json:"events"`
	Permissions bool `json:"permissions"`
}

// linkOptions tune a link.
type linkOptions struct {
	// ProbeOnly attaches without installing listeners or polling (for
	// diagnostics that must not disturb the page).
	ProbeOnly bool
	// PollInterval is the interval of the polling fallback used when the
	// page has no onOnEvent; 2s when zero.
	PollInterval time.Duration
	// Notices receives the notices; the link makes its own channel when nil.
	Notices chan<- session.Notice
	Logger  *slog.Logger
	// MaxPushedEntry is the largest entry a notice carries
	// (MaxPushedEntry when zero, none when negative).
	MaxPushedEntry int
}

// link is a CDP connection to a page with LocalSessions. On every attach
// and page reload it waits for LocalSessions and installs the listeners,
// which call a CDP binding with {sessionId, kind}; when the page cannot
// push, it polls. Notices of one session and kind are coalesced while the
// receiver is busy and written straight onto the channel it was given.
type link struct {
	conn      *chrome.Conn // nil on the Node inspector route
	call      caller       // conn, or the inspector
	insp      *chrome.Inspector
	connected chan struct{} // closed once conn is set
	binding   string        // "" when probing only
	interval  time.Duration
	maxPushed int // the largest entry a notice carries
	log       *slog.Logger

	raw chan session.Notice   // from the binding and the poll; never blocks the read loop
	out chan<- session.Notice // to the receiver, coalesced
	own chan session.Notice   // out, when the link made it

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu       sync.Mutex
	probe    Probe
	stopPoll context.CancelFunc
	// aliases maps the CLI's session UUIDs (in raw events) to app ids.
	aliases map[string]session.ID

	// pushed are the entries the notices carried (pushed.go).
	pushed pushed
}

// connect attaches to the page that cfg selects (PagePatterns when it
// names none), preferring a page with LocalSessions.
func connect(ctx context.Context, cfg chrome.Config, o linkOptions) (*link, error) {
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
	if o.MaxPushedEntry == 0 {
		o.MaxPushedEntry = MaxPushedEntry
	}
	l := &link{connected: make(chan struct{}), interval: o.PollInterval, log: log.With("component", "claude"),
		raw: make(chan session.Notice, 1024), out: o.Notices, maxPushed: max(0, o.MaxPushedEntry)}
	if l.out == nil {
		l.own = make(chan session.Notice, 64)
		l.out = l.own
	}
	l.ctx, l.cancel = context.WithCancel(context.Background())
	if !o.ProbeOnly {
		var rnd [6]byte
		_, _ = rand.Read(rnd[:])
		l.binding = bindingPrefix + hex.EncodeToString(rnd[:])
		cfg.Bindings = map[string]func(string){l.binding: l.onBinding}
	}
	cfg.Prefer = l.prefer
	cfg.OnAttach = l.onAttach
	conn, err := chrome.Connect(ctx, cfg)
	if err != nil {
		l.cancel()
		l.wg.Wait()
		return nil, err
	}
	l.conn, l.call = conn, conn
	close(l.connected)
	if !o.ProbeOnly {
		l.wg.Go(l.coalesce)
	}
	return l, nil
}

// Probe returns what the attached page last reported about LocalSessions.
func (l *link) Probe() Probe {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.probe
}

// Notices is the channel the link made, or nil when it was given one.
func (l *link) Notices() <-chan session.Notice { return l.own }

// Close removes the listeners, stops the poll and the coalescing, and
// closes the connection (the page stays open).
func (l *link) Close(ctx context.Context) error {
	if l.binding != "" {
		uctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		if _, err := l.call.CallNow(uctx, unlistenJS, l.binding); err != nil {
			l.log.Debug("remove listeners", "err", err)
		}
		cancel()
	}
	l.cancel()
	err := l.call.Close(ctx)
	done := make(chan struct{})
	go func() { l.wg.Wait(); close(done) }()
	select {
	case <-done:
		return err
	case <-ctx.Done():
		return errors.Join(err, ctx.Err())
	}
}

func probePage(ctx context.Context, p *chrome.Page) (Probe, error) {
	raw, err := p.Call(ctx, probeJS)
	if err != nil {
		return Probe{}, err
	}
	var pr Probe
	if err := json.Unmarshal(raw, &pr); err != nil {
		return Probe{}, fmt.Errorf("decode probe: %w", err)
	}
	return pr, nil
}

// prefer chooses, of several matching pages, one with LocalSessions.
func (l *link) prefer(ctx context.Context, p *chrome.Page) (bool, error) {
	pr, err := probePage(ctx, p)
	return pr.Present, err
}

// onAttach waits until the page has LocalSessions (bounded by ctx, and by
// a grace period once the document has loaded, so a page without it still
// gets through and its calls fail naming what is missing), then installs
// the listeners and starts or stops the poll.
func (l *link) onAttach(ctx context.Context, p *chrome.Page) error {
	var loadedAt time.Time
	for {
		pr, err := probePage(ctx, p)
		if errors.Is(err, chrome.ErrConnectionLost) {
			return err
		}
		if err == nil {
			l.mu.Lock()
			l.probe = pr
			l.mu.Unlock()
			if pr.Present {
				break
			}
			if pr.ReadyState == "complete" {
				if loadedAt.IsZero() {
					loadedAt = time.Now()
				} else if time.Since(loadedAt) > 2*time.Second {
					break
				}
			}
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("waiting for LocalSessions: %w", ctx.Err())
		case <-time.After(25 * time.Millisecond):
		}
	}
	if l.binding == "" {
		return nil // probing only: nothing to listen for
	}
	l.pushed.forget()
	raw, err := p.Call(ctx, listenJS, l.binding, l.maxPushed)
	if err != nil {
		return err
	}
	var lr listenResult
	if err := json.Unmarshal(raw, &lr); err != nil {
		return fmt.Errorf("decode listener result: %w", err)
	}
	l.log.Debug("listeners installed", "page", p.URL(), "events", lr.Events)
	l.setPolling(!lr.Events)
	return nil
}

// setPolling stops the poll that runs and, when on, starts a new one.
func (l *link) setPolling(on bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.stopPoll != nil {
		l.stopPoll()
		l.stopPoll = nil
	}
	if on && l.ctx.Err() == nil {
		ctx, cancel := context.WithCancel(l.ctx)
		l.stopPoll = cancel
		l.wg.Go(func() { l.poll(ctx) })
	}
}

// onBinding receives a listener's notice on the connection's read loop.
func (l *link) onBinding(payload string) {
	var p struct {
		session.Notice
		UUID  *string         `json:"uuid"`
		Prev  string          `json:"prev"`
		Entry json.RawMessage `json:"entry"`
	}
	if json.Unmarshal([]byte(payload), &p) != nil || p.SessionID == "" {
		return
	}
	n, ok := l.route(p.Notice)
	if !ok {
		return
	}
	if p.UUID != nil {
		// A new entry: kept for the next Read (pushed.go), before the
		// notice that makes the engine read goes out.
		l.pushed.add(n.SessionID, pushedEntry{prev: p.Prev, uuid: *p.UUID, raw: p.Entry})
	}
	select {
	case l.raw <- n:
	default: // the coalescer is far behind; the engine's own reads catch up
	}
}

// poll is the fallback when the page has no onOnEvent: it compares session
// fingerprints at the configured interval and sends "updated" notices.
func (l *link) poll(ctx context.Context) {
	select {
	case <-l.connected:
	case <-ctx.Done():
		return
	}
	t := time.NewTicker(l.interval)
	defer t.Stop()
	last := map[string]string{}
	for {
		cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		raw, err := l.call.Call(cctx, pollJS)
		cancel()
		if err == nil {
			var rows [][2]string
			if json.Unmarshal(raw, &rows) == nil {
				seen := map[string]string{}
				for _, r := range rows {
					seen[r[0]] = r[1]
					if last[r[0]] != r[1] {
						select {
						case l.raw <- session.Notice{SessionID: session.ID(r[0]), Kind: session.NoticeUpdated}:
						default:
						}
					}
				}
				last = seen
			}
		} else if ctx.Err() == nil {
			l.log.Debug("poll failed", "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// coalesce moves notices to the receiver, merging repeats of one session
// and kind while the receiver is busy.
func (l *link) coalesce() {
	var queue []session.Notice
	queued := map[session.Notice]bool{}
	for {
		var out chan<- session.Notice
		var head session.Notice
		if len(queue) > 0 {
			out, head = l.out, queue[0]
		}
		select {
		case <-l.ctx.Done():
			return
		case n := <-l.raw:
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
