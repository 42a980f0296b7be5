package claude

import (
	"sync"

	"github.com/baton-app/baton/backend/chrome"
	"github.com/baton-app/baton/backend/session"
)

// linkState follows the CDP connection's status for session.HostLink: the
// link is lost while the connection reattaches (the browser went away, the
// page closed) and up again once a page is attached.
type linkState struct {
	mu     sync.Mutex
	down   bool
	reason string
	ch     chan struct{}
}

func newLinkState() *linkState { return &linkState{ch: make(chan struct{})} }

// set takes one status of the connection; it runs on the connection's
// supervisor and returns at once.
func (l *linkState) set(s chrome.Status) {
	down := s.State != chrome.Connected
	l.mu.Lock()
	defer l.mu.Unlock()
	l.reason = s.Reason
	if down != l.down {
		l.down = down
		close(l.ch)
		l.ch = make(chan struct{})
	}
}

func (l *linkState) state() session.LinkState {
	l.mu.Lock()
	defer l.mu.Unlock()
	return session.LinkState{Up: !l.down, Reason: l.reason, Changed: l.ch}
}

var _ session.HostLink = (*Host)(nil)

// Link implements session.HostLink.
func (h *Host) Link() session.LinkState { return h.state.state() }
