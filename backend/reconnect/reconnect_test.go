package reconnect

import (
	"strings"
	"testing"
	"time"

	"github.com/baton-app/baton/backend/session"
)

// A run's wait for its lost host: since and until when, the message before
// it, the bound's timer, a copy for other goroutines, and the sentences
// that show it, end it when the host is back and stop the run when it is
// not.
func TestLinkWait(t *testing.T) {
	t.Parallel()
	var l Link
	if l.Waiting() || l.Current() != nil || l.GiveUp() != nil || l.Overdue(time.Now()) {
		t.Fatal("a new link waits")
	}
	now := time.Now()
	rc := l.Lose(now, 50*time.Millisecond, session.LinkState{Reason: "browser went away"}, "working")
	info := l.Current()
	if !l.Waiting() || info == nil || !info.Until.Equal(now.Add(50*time.Millisecond)) || info.Reason != "browser went away" || *info != rc {
		t.Fatalf("lost: %+v", info)
	}
	if text := rc.Text(); !strings.HasPrefix(text, "Reconnecting to the session host") || !strings.HasSuffix(text, "browser went away") {
		t.Errorf("what shows it: %q", text)
	}
	select {
	case <-l.GiveUp():
	case <-time.After(5 * time.Second):
		t.Fatal("the bound never fired")
	}
	if !l.Overdue(time.Now()) {
		t.Error("not overdue after the bound")
	}
	reason, waited := l.Expire()
	if waited != 50*time.Millisecond || !strings.Contains(reason, "unreachable for 0s") ||
		!strings.HasSuffix(reason, "(browser went away)") || l.Waiting() || l.GiveUp() != nil {
		t.Errorf("expired: %q after %s", reason, waited)
	}
	l.Lose(time.Now(), time.Minute, session.LinkState{}, "before")
	said, msg, away := l.Back()
	if away <= 0 || away > time.Minute || msg != "before" || !strings.HasPrefix(said, "The session host is back after") || l.Waiting() {
		t.Errorf("back: %q, %q after %s", said, msg, away)
	}

	// The model, lost since before the link last came and went: the bound
	// counts from the first sign of the loss.
	now = time.Now()
	rc = l.Lose(now, time.Minute, session.LinkState{Model: true, Since: now.Add(-40 * time.Second), Reason: "the model cannot be reached"}, "working")
	info = l.Current()
	if info == nil || !info.Model || !info.Until.Equal(now.Add(20*time.Second)) || !strings.HasPrefix(rc.Text(), "Reconnecting to the model") {
		t.Fatalf("model lost: %+v, %q", info, rc.Text())
	}
	reason, _ = l.Expire()
	if !strings.HasPrefix(reason, "The model was unreachable for 1m0s") || !strings.Contains(reason, "Resume it when the model is back") {
		t.Errorf("model expired: %q", reason)
	}
	// Paused meanwhile: End gives the message back.
	l.Lose(time.Now(), time.Minute, session.LinkState{}, "kept")
	if msg := l.End(); msg != "kept" || l.Waiting() {
		t.Errorf("end: %q", msg)
	}
	// Resumed meanwhile: the user asked to try again, the wait counts from
	// then.
	l.Retry(now)
	l.Lose(now.Add(time.Second), time.Minute, session.LinkState{Model: true, Since: now.Add(-40 * time.Second)}, "working")
	if info = l.Current(); !info.Since.Equal(now) || !info.Until.Equal(now.Add(time.Minute)) {
		t.Errorf("after a resume the wait is %+v", info)
	}
}
