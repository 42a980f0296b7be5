package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

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
// (Model) for the model its host's sessions talk to.
type Reconnecting struct {
	Since  time.Time `json:"since"`
	Until  time.Time `json:"until"`
	Reason string    `json:"reason,omitempty"`
	Model  bool      `json:"model,omitempty"`
}

// what is what the run waits for.
func (rc Reconnecting) what() string {
	if rc.Model {
		return "the model"
	}
	return "the session host"
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
	// floor: a wait counts from here at the earliest (the run was resumed
	// or taken up then: the user asked to try again).
	floor time.Time
}

// retry makes a wait count from now at the earliest (a Resume, a restore).
func (l *link) retry(now time.Time) {
	l.mu.Lock()
	l.floor = now
	l.mu.Unlock()
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

// lose starts waiting at now, at most bound from when the loss began, for
// a host (or model) lost as st says; message is the run's message until
// now. It returns the change that shows the run reconnecting.
func (l *link) lose(now time.Time, bound time.Duration, st session.LinkState, message string) change {
	since := now
	if !st.Since.IsZero() && st.Since.Before(now) {
		since = st.Since
	}
	l.mu.Lock()
	if since.Before(l.floor) {
		since = l.floor
	}
	info := Reconnecting{Since: since, Until: since.Add(bound), Reason: st.Reason, Model: st.Model}
	l.info, l.timer, l.message = &info, time.NewTimer(max(0, info.Until.Sub(now))), message
	l.mu.Unlock()
	text := reconnectingText(info)
	ev := newEvent(EventReconnecting, nil, text)
	ev.p.Reconnecting = &info
	return change{}.with(nil, ev).say(text)
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

// back ends the wait for a host that came back and returns the change that
// says so (the run's message is the one before the wait again) and how
// long the host was away.
func (l *link) back() (change, time.Duration) {
	info, msg := l.end()
	away := time.Since(info.Since)
	return change{}.with(nil, newEvent(EventReconnected, nil,
		fmt.Sprintf("%s is back after %s.", capitalize(info.what()), away.Round(time.Second)))).say(msg), away
}

// expire ends the wait that reached its bound and returns the change that
// stops the run as interrupted, with the reason, and how long it waited.
// Everything done is kept (the workers keep their status, the sessions are
// not touched), and Resume continues the run on a host that is back.
func (l *link) expire() (change, time.Duration) {
	info, _ := l.end()
	waited := info.Until.Sub(info.Since)
	reason := fmt.Sprintf("%s was unreachable for %s, so the run stopped; everything done is kept. Resume it when %s is back.",
		capitalize(info.what()), waited.Round(time.Second), info.what())
	if info.Reason != "" {
		reason += " (" + strings.TrimSpace(info.Reason) + ")"
	}
	return change{}.with(nil, newEvent(EventStatusChanged, nil, reason)).say(reason), waited
}

func reconnectingText(rc Reconnecting) string {
	msg := fmt.Sprintf("Reconnecting to %s (lost at %s); the run stops as interrupted at %s unless it comes back.",
		rc.what(), rc.Since.Format("15:04:05"), rc.Until.Format("15:04:05"))
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
	switch {
	case (st.Up || !r.status.worksOnHost()) && !r.link.waiting():
		return false
	case !st.Up && !r.status.worksOnHost():
		// Paused or cancelled while waiting: the run no longer waits for
		// the host (a Resume waits again if it is still lost).
		_, r.run.Message = r.link.end()
		return false
	case st.Up:
		c, away := r.link.back()
		now := r.e.now()
		r.plan.touch(now)
		for _, ws := range r.plan.workers {
			ws.book.Reconnected()
		}
		r.main.Reconnected()
		r.main.refresh(now)
		r.log.Info("the host is back", "after", away.Round(time.Millisecond))
		r.halted(r.apply(ctx, c))
		return false
	case !r.link.waiting():
		bound := r.e.reconnectBound()
		r.log.Warn("the host is lost; reconnecting", "reason", st.Reason, "model", st.Model, "for", bound)
		r.halted(r.apply(ctx, r.link.lose(time.Now(), bound, st, r.run.Message)))
		return true
	case !r.link.overdue(time.Now()):
		return true
	}
	c, waited := r.link.expire()
	r.log.Warn("the host did not come back; the run is interrupted", "after", waited)
	r.resume = r.status
	if err := r.move(RunInterrupted); err != nil {
		r.log.Error("interrupt", "err", err)
		return true
	}
	r.stopped = true
	r.halted(r.apply(context.WithoutCancel(ctx), c))
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

// capitalize upper-cases the first letter of s.
func capitalize(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	return string(unicode.ToUpper(r)) + s[n:]
}
