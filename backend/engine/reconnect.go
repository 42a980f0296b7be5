package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/baton-app/baton/backend/session"
	"github.com/baton-app/baton/backend/store"
)

// Hosts that die: every host call has a deadline; a host whose connection
// can be lost (HostLink) says so at once, and its calls in flight end with
// ErrHostLost. A run that works on the host then shows "reconnecting" (the
// events EventReconnecting and EventReconnected, Snapshot.Reconnecting) and
// takes no step until the link is back; after Options.ReconnectFor it stops
// as interrupted, keeping everything done, and Resume continues it.

// Reconnecting describes a run that waits for its host to come back.
type Reconnecting struct {
	Since  time.Time `json:"since"`
	Until  time.Time `json:"until"`
	Reason string    `json:"reason,omitempty"`
}

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

// SetReconnectFor changes how long a run waits for a lost host (from the
// next loss on); d <= 0 sets the default.
func (e *Engine) SetReconnectFor(d time.Duration) {
	if d <= 0 {
		d = DefaultReconnectFor
	}
	e.mu.Lock()
	e.reconnectFor = d
	e.mu.Unlock()
}

func (e *Engine) reconnectBound() time.Duration {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.reconnectFor
}

// hostDown reports whether the host's connection is lost now.
func (e *Engine) hostDown() bool { return !e.host.state().Up }

// Reconnecting returns the reconnect run runID waits for, if it waits.
func (e *Engine) Reconnecting(runID string) *Reconnecting {
	e.mu.Lock()
	defer e.mu.Unlock()
	r := e.runs[runID]
	if r == nil || r.recon == nil {
		return nil
	}
	rc := *r.recon.info
	return &rc
}

// reconnect is a run's wait for its host.
type reconnect struct {
	info  *Reconnecting
	timer *time.Timer
	// message is the run's message before, shown again when the host is
	// back.
	message string
}

// linkWait returns what the loop waits on for the link: the channel closed
// at its next change (nil without a HostLink) and the end of the reconnect
// bound (nil unless reconnecting).
func (r *runner) linkWait() (<-chan struct{}, <-chan time.Time) {
	var giveUp <-chan time.Time
	if r.recon != nil {
		giveUp = r.recon.timer.C
	}
	return r.e.host.state().Changed, giveUp
}

// worksOnHost: the statuses in which a run talks to its host by itself.
func (s RunStatus) worksOnHost() bool {
	switch s {
	case RunAnalyzing, RunPlanning, RunSpawning, RunRunning, RunAggregating, RunVerifying:
		return true
	}
	return false
}

// checkLink follows the host's link. It returns true while the run must
// take no step: the host is lost (the run shows reconnecting), or the bound
// passed and the run stopped as interrupted (r.stopped).
func (r *runner) checkLink(ctx context.Context) bool {
	st := r.e.host.state()
	if st.Up || !r.status.worksOnHost() {
		switch {
		case r.recon == nil:
		case st.Up:
			r.reconnected(ctx)
		default:
			// Paused or cancelled while waiting: the run no longer waits
			// for the host (a Resume waits again if it is still lost).
			r.recon.timer.Stop()
			r.run.Message = r.recon.message
			r.e.mu.Lock()
			r.recon = nil
			r.e.mu.Unlock()
		}
		return false
	}
	if r.recon == nil {
		now := time.Now()
		bound := r.e.reconnectBound()
		info := &Reconnecting{Since: now, Until: now.Add(bound), Reason: st.Reason}
		r.e.mu.Lock()
		r.recon = &reconnect{info: info, timer: time.NewTimer(bound), message: r.run.Message}
		r.e.mu.Unlock()
		r.run.Message = reconnectingText(info)
		r.log().Warn("the host is lost; reconnecting", "reason", st.Reason, "for", bound)
		ev := r.ev(EventReconnecting, nil, reconnectingText(info))
		ev.p.Reconnecting = info
		r.halted(r.commit(ctx, store.Change{}, nil, ev))
		return true
	}
	if time.Now().Before(r.recon.info.Until) {
		return true
	}
	r.giveUp(ctx)
	return true
}

func reconnectingText(rc *Reconnecting) string {
	msg := fmt.Sprintf("Reconnecting to the session host (lost at %s); the run stops as interrupted at %s unless it comes back.",
		rc.Since.Format("15:04:05"), rc.Until.Format("15:04:05"))
	if rc.Reason != "" {
		msg += " " + rc.Reason
	}
	return msg
}

// reconnected: the host is back in time, the run goes on. Its timers start
// again (the time without a host is nobody's fault) and every session is
// read again.
func (r *runner) reconnected(ctx context.Context) {
	r.recon.timer.Stop()
	since := r.recon.info.Since
	r.run.Message = r.recon.message
	r.e.mu.Lock()
	r.recon = nil
	r.e.mu.Unlock()
	now := r.e.now()
	for _, ws := range r.plan.workers {
		ws.activity = now
		ws.book.failures = 0
	}
	r.main.failures = 0
	if r.main.Asked != "" {
		r.main.AskedAt = now
	}
	r.log().Info("the host is back", "after", time.Since(since).Round(time.Millisecond))
	r.halted(r.commit(ctx, store.Change{}, nil, r.ev(EventReconnected, nil,
		fmt.Sprintf("The session host is back after %s.", time.Since(since).Round(time.Second)))))
}

// giveUp stops the run as interrupted when its host stayed away past the
// bound: everything done is kept (the workers keep their status, the
// sessions are not touched) and Resume continues it on a host that is back.
func (r *runner) giveUp(ctx context.Context) {
	info := r.recon.info
	r.recon.timer.Stop()
	r.e.mu.Lock()
	r.recon = nil
	r.e.mu.Unlock()
	waited := info.Until.Sub(info.Since)
	reason := fmt.Sprintf("The session host was unreachable for %s, so the run stopped; everything done is kept. Resume it when the host is back.",
		waited.Round(time.Second))
	if info.Reason != "" {
		reason += " (" + strings.TrimSpace(info.Reason) + ")"
	}
	r.log().Warn("the host did not come back; the run is interrupted", "after", waited)
	r.resume = r.status
	if err := r.move(RunInterrupted); err != nil {
		r.log().Error("interrupt", "err", err)
		return
	}
	r.run.Message = reason
	r.stopped = true
	r.halted(r.commit(context.WithoutCancel(ctx), store.Change{}, nil, r.ev(EventStatusChanged, nil, reason)))
}

// lostHost reports whether err came from a host that was lost; the step
// that got it changes nothing, and the run waits for the host.
func lostHost(err error) bool { return errors.Is(err, session.ErrHostLost) }

// startLost: a worker's start was cut because the host was lost. Nothing is
// counted against the task: it is started again, under the same id, when
// the host is back, and a session the host made meanwhile is found by it.
func (r *runner) startLost(ctx context.Context, ws *workerState, err error) error {
	if ctx.Err() != nil {
		return nil // stopping: Restore looks for the session by its id
	}
	if e := ws.move(WorkerPending); e != nil {
		return e
	}
	ws.w.SessionID = ""
	ws.w.Error = ""
	r.log().Info("a worker's start was cut by the lost host; it starts again when the host is back", "task", ws.w.TaskID, "err", err)
	return r.commit(ctx, store.Change{}, []*workerState{ws}, r.ev(EventWorkerRetrying, ws, "the session host was lost while the worker started"))
}
