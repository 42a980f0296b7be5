// Package reconnect is a run's wait for its lost host (session.HostLink):
// since and until when it waits, the run's message before, the timer that
// fires at the bound, and the sentences that say the run reconnects, that
// the host is back, or that the run stopped. It decides and says; the
// engine stores and tells.
package reconnect

import (
	"fmt"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/baton-app/baton/backend/session"
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

// Text says that the run reconnects, until when.
func (rc Reconnecting) Text() string {
	msg := fmt.Sprintf("Reconnecting to %s (lost at %s); the run stops as interrupted at %s unless it comes back.",
		rc.what(), rc.Since.Format("15:04:05"), rc.Until.Format("15:04:05"))
	if rc.Reason != "" {
		msg += " " + rc.Reason
	}
	return msg
}

// Link is a run's wait for its lost host. The run's goroutine changes it;
// others read it (Current). The zero Link waits for nothing.
type Link struct {
	mu    sync.Mutex
	info  *Reconnecting
	timer *time.Timer
	// message is the run's message before the wait.
	message string
	// floor: a wait counts from here at the earliest (the run was resumed
	// or taken up then: the user asked to try again).
	floor time.Time
}

// Retry makes a wait count from now at the earliest (a Resume, a restore).
func (l *Link) Retry(now time.Time) {
	l.mu.Lock()
	l.floor = now
	l.mu.Unlock()
}

// Waiting reports whether the run waits for its host.
func (l *Link) Waiting() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.info != nil
}

// Current is a copy of the wait, or nil.
func (l *Link) Current() *Reconnecting {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.info == nil {
		return nil
	}
	rc := *l.info
	return &rc
}

// Lose starts waiting at now, at most bound from when the loss began, for
// a host (or model) lost as st says; message is the run's message until
// now. It returns the wait, whose Text the run shows.
func (l *Link) Lose(now time.Time, bound time.Duration, st session.LinkState, message string) Reconnecting {
	since := now
	if !st.Since.IsZero() && st.Since.Before(now) {
		since = st.Since
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if since.Before(l.floor) {
		since = l.floor
	}
	info := Reconnecting{Since: since, Until: since.Add(bound), Reason: st.Reason, Model: st.Model}
	l.info, l.timer, l.message = &info, time.NewTimer(max(0, info.Until.Sub(now))), message
	return info
}

// GiveUp is the channel that fires when the wait reaches its bound (nil
// while the run does not wait).
func (l *Link) GiveUp() <-chan time.Time {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.timer == nil {
		return nil
	}
	return l.timer.C
}

// Overdue reports whether the wait reached its bound at now.
func (l *Link) Overdue(now time.Time) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.info != nil && !now.Before(l.info.Until)
}

// End ends the wait and returns the run's message before it.
func (l *Link) End() string {
	_, msg := l.end()
	return msg
}

func (l *Link) end() (Reconnecting, string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	info := *l.info
	l.timer.Stop()
	l.info, l.timer = nil, nil
	return info, l.message
}

// Back ends the wait for a host that came back: it says so, returns the
// run's message before the wait, and how long the host was away.
func (l *Link) Back() (said, message string, away time.Duration) {
	info, msg := l.end()
	away = time.Since(info.Since)
	return fmt.Sprintf("%s is back after %s.", capitalize(info.what()), away.Round(time.Second)), msg, away
}

// Expire ends the wait that reached its bound: it returns why the run
// stops as interrupted and how long it waited. Everything done is kept
// (the workers keep their status, the sessions are not touched), and
// Resume continues the run on a host that is back.
func (l *Link) Expire() (reason string, waited time.Duration) {
	info, _ := l.end()
	waited = info.Until.Sub(info.Since)
	reason = fmt.Sprintf("%s was unreachable for %s, so the run stopped; everything done is kept. Resume it when %s is back.",
		capitalize(info.what()), waited.Round(time.Second), info.what())
	if info.Reason != "" {
		reason += " (" + strings.TrimSpace(info.Reason) + ")"
	}
	return reason, waited
}

// capitalize upper-cases the first letter of s.
func capitalize(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	return string(unicode.ToUpper(r)) + s[n:]
}
