package claude

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/baton-app/baton/backend/session"
)

// tailLimit is how many entries a read asks getTranscriptTail for, where
// the app has it; a cursor further back than that reads the whole
// transcript.
const tailLimit = 200

// queuedAfter is how long a sent message may be missing from the
// transcript while the session's turn runs before it counts as queued
// behind that turn (delivered) rather than lost.
const queuedAfter = 1500 * time.Millisecond

// flexTime is a date of a session object: epoch milliseconds (a number or
// numeric text) or ISO 8601 text. Anything else reads as no date, so one
// odd session never fails a whole list.
type flexTime struct{ t time.Time }

func (f *flexTime) UnmarshalJSON(b []byte) error {
	f.t = time.Time{}
	b = bytes.TrimSpace(b)
	if len(b) == 0 || bytes.Equal(b, []byte("null")) {
		return nil
	}
	var s string
	if b[0] == '"' {
		if json.Unmarshal(b, &s) != nil {
			return nil
		}
	} else {
		s = string(b)
	}
	s = strings.TrimSpace(s)
	if n, err := strconv.ParseFloat(s, 64); err == nil {
		if n > 0 {
			if n < 1e11 { // seconds, not milliseconds
				n *= 1000
			}
			f.t = time.UnixMilli(int64(n))
		}
		return nil
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999", "2006-01-02 15:04:05.999999999Z07:00"} {
		if t, err := time.Parse(layout, s); err == nil {
			f.t = t
			return nil
		}
	}
	return nil
}

// sessionObject returns the page's object of session id, or nil.
func (h *Host) sessionObject(ctx context.Context, id session.ID) (*sessionObject, error) {
	var o *sessionObject
	if err := h.callIdempotent(ctx, sessionJS, &o, string(id)); err != nil {
		return nil, err
	}
	return o, nil
}

// ErrWorktree is returned when Claude Desktop put a new session in a git
// worktree of its own although Baton asked for none.
var ErrWorktree = errors.New("the session runs in a git worktree")

// checkWorktree refuses a session that the app put in a git worktree
// (worktreePath other than the folder Baton asked for) when Baton did not
// ask for one: the run's aggregation, verification, journal and mailbox
// look at the run's folder, so the session is stopped and archived and
// Start fails saying so.
func (h *Host) checkWorktree(ctx context.Context, id session.ID, opts session.StartOptions) error {
	if opts.UseWorktree {
		return nil
	}
	o, err := h.sessionObject(ctx, id)
	if err != nil || o == nil || o.WorktreePath == "" || samePath(o.WorktreePath, opts.Cwd) {
		return nil // nothing says it moved
	}
	_ = h.invoke(ctx, "stop", string(id))
	_ = h.invoke(ctx, "archive", string(id))
	return fmt.Errorf("start session %s: %w: Claude Desktop put it in %s instead of %s, where this run works, "+
		"although Baton asked for no worktree (useWorktree: false); the session was stopped and archived. "+
		"Turn off worktrees for new sessions in Claude Desktop, or update Baton, and start the run again", id, ErrWorktree, o.WorktreePath, opts.Cwd)
}

func samePath(a, b string) bool {
	return filepath.Clean(a) == filepath.Clean(b)
}

// entryIDs is the session id an entry names: sessionId (Claude Code's
// on-disk lines) or session_id (its stream-json events).
type entryIDs struct {
	SessionID  string `json:"sessionId"`
	SessionID2 string `json:"session_id"`
}

// learnAliases notes the CLI session UUIDs that the entries of session id
// carry, so that raw events naming them are routed to id.
func (l *link) learnAliases(id session.ID, entries []json.RawMessage) {
	for _, raw := range entries {
		var e entryIDs
		if json.Unmarshal(raw, &e) != nil {
			continue
		}
		for _, cli := range []string{e.SessionID, e.SessionID2} {
			if cli != "" && cli != string(id) {
				l.alias(cli, id)
			}
		}
	}
}

func (l *link) alias(cli string, id session.ID) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.aliases == nil {
		l.aliases = map[string]session.ID{}
	}
	l.aliases[cli] = id
}

// route maps the session id of a notice to the app's id: an app id
// (local_…) as it is, a CLI UUID by the aliases learned, or else by asking
// the page (resolve.js), off the connection's read loop. It returns false
// when the notice is sent later (or never, for an id no session has).
func (l *link) route(n session.Notice) (session.Notice, bool) {
	if strings.HasPrefix(string(n.SessionID), "local_") {
		return n, true
	}
	l.mu.Lock()
	id, ok := l.aliases[string(n.SessionID)]
	l.mu.Unlock()
	if ok {
		n.SessionID = id
		return n, true
	}
	if l.ctx.Err() != nil {
		return n, false
	}
	l.wg.Go(func() {
		select {
		case <-l.connected:
		case <-l.ctx.Done():
			return
		}
		ctx, cancel := context.WithTimeout(l.ctx, 30*time.Second)
		defer cancel()
		raw, err := l.call.Call(ctx, resolveJS, string(n.SessionID))
		var got string
		if err != nil || json.Unmarshal(raw, &got) != nil || got == "" {
			l.log.Debug("an event names no session", "id", n.SessionID, "err", err)
			return
		}
		l.alias(string(n.SessionID), session.ID(got))
		select {
		case l.raw <- session.Notice{SessionID: session.ID(got), Kind: n.Kind}:
		default:
		}
	})
	return n, false
}
