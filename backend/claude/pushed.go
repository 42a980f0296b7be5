package claude

import (
	"encoding/json"
	"sync"

	"github.com/baton-app/baton/backend/session"
)

// The entries carried in the push: the page's listener sends a new
// transcript entry with its notice (up to MaxPushedEntry bytes of JSON),
// with the uuid of the entry it sent before for the same session. Read
// hands them out without a CDP round trip when they follow the cursor's
// entry in an unbroken chain up to the newest entry pushed; otherwise (an
// entry too big to push, a notice lost, a push not yet routed, nothing new
// pushed) it reads the page as before.

// MaxPushedEntry is the largest entry (its JSON) a notice carries.
const MaxPushedEntry = 256 << 10

// Bounds of what the link keeps of the pushes.
const (
	maxPushedPerSession = 512
	maxPushedSessions   = 256
)

// pushedEntry is one entry a notice carried (raw nil: too big to carry).
type pushedEntry struct {
	prev, uuid string
	raw        json.RawMessage
}

// pushed is what the link keeps of the pushes, per session.
type pushed struct {
	mu       sync.Mutex
	sessions map[session.ID]*pushedChain
}

type pushedChain struct {
	byPrev map[string]pushedEntry // an entry by the uuid of the one before it
	order  []string               // prev uuids, oldest first (for the bound)
	latest string                 // uuid of the newest entry pushed
}

// add notes one push of session id.
func (p *pushed) add(id session.ID, e pushedEntry) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.sessions == nil {
		p.sessions = map[session.ID]*pushedChain{}
	}
	c := p.sessions[id]
	if c == nil {
		if len(p.sessions) >= maxPushedSessions {
			for k := range p.sessions { // any one: its reads go to the page
				delete(p.sessions, k)
				break
			}
		}
		c = &pushedChain{byPrev: map[string]pushedEntry{}}
		p.sessions[id] = c
	}
	c.latest = e.uuid
	if e.prev == "" || e.uuid == "" {
		return // no link to follow
	}
	if _, ok := c.byPrev[e.prev]; !ok {
		c.order = append(c.order, e.prev)
	}
	c.byPrev[e.prev] = e
	if len(c.order) > maxPushedPerSession {
		delete(c.byPrev, c.order[0])
		c.order = c.order[1:]
	}
}

// after returns the pushed entries that follow the entry uuid, when they
// reach the newest entry pushed without a gap and are at most limit, and
// the uuid of the last one.
func (p *pushed) after(id session.ID, uuid string, limit int) ([]json.RawMessage, string, bool) {
	if uuid == "" {
		return nil, "", false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	c := p.sessions[id]
	if c == nil || c.latest == "" || c.latest == uuid {
		return nil, "", false
	}
	var out []json.RawMessage
	for at := uuid; at != c.latest; {
		e, ok := c.byPrev[at]
		if !ok || e.raw == nil || len(out) == limit {
			return nil, "", false
		}
		out = append(out, e.raw)
		at = e.uuid
	}
	return out, c.latest, true
}

// forget drops everything pushed (the listeners were installed again: a
// new page, or a reload).
func (p *pushed) forget() {
	p.mu.Lock()
	p.sessions = nil
	p.mu.Unlock()
}
