package engine

import (
	"context"
	"errors"
	"time"

	"github.com/baton-app/baton/backend/reconnect"
	"github.com/baton-app/baton/backend/session"
)

// A run that works on a host whose connection is lost (session.HostLink)
// shows "reconnecting" (the events EventReconnecting and EventReconnected,
// Snapshot.Reconnecting) and takes no step until the link is back; after
// Options.ReconnectFor it stops as interrupted, keeping everything done,
// and Resume continues it.

// The default bounds of host calls and of a reconnect.
const (
	DefaultReconnectFor = 2 * time.Minute
	// defaultQuickWait bounds the calls that only look (Session, Read) and
	// those that stop a session (Interrupt, Archive).
	defaultQuickWait = 15 * time.Second
)

// Reconnecting describes a run that waits for its host to come back, or
// (Model) for the model its host's sessions talk to (backend/reconnect).
type Reconnecting = reconnect.Reconnecting

// checkLink follows the host's link. It returns true while the run must
// take no step: the host is lost (the run shows reconnecting), or the bound
// passed and the run stopped as interrupted (r.stopped). A host back in
// time lets the run go on: its timers start again (the time without a host
// is nobody's fault) and every session is read again.
func (r *runner) checkLink(ctx context.Context) bool {
	st := r.e.host.Link()
	switch {
	case (st.Up || !r.status.WorksOnHost()) && !r.link.Waiting():
		return false
	case !st.Up && !r.status.WorksOnHost():
		// Paused or cancelled while waiting: the run no longer waits for
		// the host (a Resume waits again if it is still lost).
		r.run.Message = r.link.End()
		return false
	case st.Up:
		said, msg, away := r.link.Back()
		now := r.e.now()
		r.plan.touch(now)
		for _, ws := range r.plan.workers {
			ws.book.Reconnected()
		}
		r.main.Reconnected()
		r.main.Refresh(now)
		r.log.Info("the host is back", "after", away.Round(time.Millisecond))
		r.ledger.Halted(&r.run, r.apply(ctx, change{}.with(nil, newEvent(EventReconnected, nil, said)).say(msg)))
		return false
	case !r.link.Waiting():
		bound := r.e.reconnectBound()
		r.log.Warn("the host is lost; reconnecting", "reason", st.Reason, "model", st.Model, "for", bound)
		info := r.link.Lose(time.Now(), bound, st, r.run.Message)
		ev := newEvent(EventReconnecting, nil, info.Text())
		ev.P.Reconnecting = &info
		r.ledger.Halted(&r.run, r.apply(ctx, change{}.with(nil, ev).say(info.Text())))
		return true
	case !r.link.Overdue(time.Now()):
		return true
	}
	reason, waited := r.link.Expire()
	r.log.Warn("the host did not come back; the run is interrupted", "after", waited)
	r.resume = r.status
	if err := r.move(RunInterrupted); err != nil {
		r.log.Error("interrupt", "err", err)
		return true
	}
	r.stopped = true
	r.ledger.Halted(&r.run, r.apply(context.WithoutCancel(ctx), change{}.with(nil, newEvent(EventStatusChanged, nil, reason)).say(reason)))
	return true
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
func (e *Engine) hostDown() bool { return !e.host.Link().Up }

// Reconnecting returns the reconnect run runID waits for, if it waits.
func (e *Engine) Reconnecting(runID string) *Reconnecting {
	e.mu.Lock()
	r := e.runs[runID]
	e.mu.Unlock()
	if r == nil {
		return nil
	}
	return r.link.Current()
}

// lostHost reports whether err came from a host that was lost; the step
// that got it changes nothing, and the run waits for the host.
func lostHost(err error) bool { return errors.Is(err, session.ErrHostLost) }
