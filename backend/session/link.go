package session

import (
	"errors"
	"fmt"
	"time"
)

// ErrNoSession is what a Host wraps when a session id is unknown to it.
// Restore uses it to tell a worker session that never started (start it
// under the same id) from one it cannot see right now (keep following it;
// reads that keep failing end in a retry).
var ErrNoSession = errors.New("no such session")

// ErrHostLost is matched by the error of a host call made while, or cut
// because, the connection to the host was lost.
var ErrHostLost = errors.New("the connection to the session host is lost")

// LostError returns ErrHostLost with the reason the link gave.
func LostError(reason string) error {
	if reason == "" {
		return ErrHostLost
	}
	return fmt.Errorf("%w (%s)", ErrHostLost, reason)
}

// HostLink is implemented by a host whose connection can be lost and come
// back on its own (the CDP hosts reattach with capped backoff).
type HostLink interface {
	// Link returns the state of the connection now.
	Link() LinkState
}

// LinkState is the state of a host's connection.
type LinkState struct {
	// Up is false while the connection is lost.
	Up bool
	// Reason says why it is lost.
	Reason string
	// Model: what is lost is the model the host's sessions talk to (the
	// Claude Code CLI cannot reach the API), not the host: its calls still
	// work, and its sessions wait for the model.
	Model bool
	// Since is when the loss began, which may be before the last time the
	// link was up (the model answered nothing in between); zero: now.
	Since time.Time
	// Changed is closed at the next change (nil: it never changes).
	Changed <-chan struct{}
}

// Refuses reports whether the host's calls fail now (its connection is
// lost; a model that cannot be reached leaves them working).
func (s LinkState) Refuses() bool { return !s.Up && !s.Model }
