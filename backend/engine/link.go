package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

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

// Reconnecting describes a run that waits for its host to come back.
type Reconnecting struct {
	Since  time.Time `json:"since"`
	Until  time.Time `json:"until"`
	Reason string    `json:"reason,omitempty"`
}

// link is a run's wait for its lost host: since and until when it waits,
// and the run's message before, shown again when the host is back. The
// run's goroutine changes it; Engine.Reconnecting reads it from others.
type link struct {
	mu    sync.Mutex
	info  *Reconnecting
	timer *time.Timer
	// message is the run's message before the wait.
	message string
}

// waiting reports whether the run waits for its host.
func (l *link) waiting() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.info != nil
}

// reconnecting is a copy of the wait, or nil.
func (l *link) reconnecting() *Reconnecting {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.info == nil {
		return nil
	}
	rc := *l.info
	return &rc
}

// lose starts waiting at now, at most bound, for a host lost for reason;
// message is the run's message until now.
func (l *link) lose(now time.Time, bound time.Duration, reason, message string) Reconnecting {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.info = &Reconnecting{Since: now, Until: now.Add(bound), Reason: reason}
	l.timer = time.NewTimer(bound)
	l.message = message
	return *l.info
}

// giveUp is the channel that fires when the wait reaches its bound (nil
// while the run does not wait).
func (l *link) giveUp() <-chan time.Time {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.timer == nil {
		return nil
	}
	return l.timer.C
}

// overdue reports whether the wait reached its bound at now.
func (l *link) overdue(now time.Time) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.info != nil && !now.Before(l.info.Until)
}

// end ends the wait and returns it, with the run's message before it.
func (l *link) end() (Reconnecting, string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	info := *l.info
	l.timer.Stop()
	l.info, l.timer = nil, nil
	return info, l.message
}

func reconnectingText(rc Reconnecting) string {
	msg := fmt.Sprintf("Reconnecting to the session host (lost at %s); the run stops as interrupted at %s unless it comes back.",
		rc.Since.Format("15:04:05"), rc.Until.Format("15:04:05"))
	if rc.Reason != "" {
		msg += " " + rc.Reason
	}
	return msg
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
// passed and the run stopped as interrupted (r.stopped). A host back in
// time lets the run go on: its timers start again (the time without a host
// is nobody's fault) and every session is read again.
func (r *runner) checkLink(ctx context.Context) bool {
	st := r.e.host.Link()
	if st.Up || !r.status.worksOnHost() {
		if !r.link.waiting() {
			return false
		}
		// Back, or paused or cancelled while waiting: the run no longer
		// waits for the host (a Resume waits again if it is still lost).
		info, msg := r.link.end()
		r.run.Message = msg
		if st.Up {
			now := r.e.now()
			r.plan.touch(now)
			for _, ws := range r.plan.workers {
				ws.book.Reconnected()
			}
			r.main.Reconnected()
			r.main.refresh(now)
			r.log.Info("the host is back", "after", time.Since(info.Since).Round(time.Millisecond))
			r.halted(r.apply(ctx, change{}.with(nil, newEvent(EventReconnected, nil,
				fmt.Sprintf("The session host is back after %s.", time.Since(info.Since).Round(time.Second))))))
		}
		return false
	}
	if !r.link.waiting() {
		bound := r.e.reconnectBound()
		info := r.link.lose(time.Now(), bound, st.Reason, r.run.Message)
		r.log.Warn("the host is lost; reconnecting", "reason", st.Reason, "for", bound)
		ev := newEvent(EventReconnecting, nil, reconnectingText(info))
		ev.p.Reconnecting = &info
		r.halted(r.apply(ctx, change{}.with(nil, ev).say(reconnectingText(info))))
		return true
	}
	if !r.link.overdue(time.Now()) {
		return true
	}
	// The host stayed away past the bound: the run stops as interrupted.
	// Everything done is kept (the workers keep their status, the sessions
	// are not touched) and Resume continues it on a host that is back.
	info, _ := r.link.end()
	waited := info.Until.Sub(info.Since)
	reason := fmt.Sprintf("The session host was unreachable for %s, so the run stopped; everything done is kept. Resume it when the host is back.",
		waited.Round(time.Second))
	if info.Reason != "" {
		reason += " (" + strings.TrimSpace(info.Reason) + ")"
	}
	r.log.Warn("the host did not come back; the run is interrupted", "after", waited)
	r.resume = r.status
	if err := r.move(RunInterrupted); err != nil {
		r.log.Error("interrupt", "err", err)
		return true
	}
	r.stopped = true
	r.halted(r.apply(context.WithoutCancel(ctx), change{}.with(nil, newEvent(EventStatusChanged, nil, reason)).say(reason)))
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
	return r.link.reconnecting()
}

// lostHost reports whether err came from a host that was lost; the step
// that got it changes nothing, and the run waits for the host.
func lostHost(err error) bool { return errors.Is(err, session.ErrHostLost) }
