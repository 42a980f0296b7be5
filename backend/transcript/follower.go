package transcript

import (
	"context"
	"encoding/json"
	"sync"
	"time"

	"github.com/baton-app/baton/backend/session"
)

// MessageReadGap is the least time between two reads of a worker session
// prompted only by "message" notices. An agent adds entries in bursts (tool
// call, tool result, text), each with its notice; reading at every one would
// keep the run's goroutine busy with progress while another worker's result
// waits. A "result", "updated" or "permission" notice is read at once.
const MessageReadGap = 100 * time.Millisecond

// prefetch is one Read made ahead by Prefetch.
type prefetch struct {
	cursor session.Cursor
	batch  session.Batch
	err    error
}

// Follower follows a run's sessions: which of them changed (the dirty set
// fed by host notices), reading them (all at once when several are due,
// one read per MessageReadGap for bursts of message notices) and absorbing
// what they wrote into their Cursor. Its host bounds every call (the
// engine's host does).
type Follower struct {
	host      session.Host
	now       func() time.Time // the engine's clock
	pollEvery time.Duration
	// wake wakes the run's loop (Wake).
	wake chan struct{}

	mu    sync.Mutex
	dirty map[session.ID]session.NoticeKind

	// prefetched holds the reads made at once for the sessions about to be
	// checked, consumed by absorb.
	prefetched map[session.ID]prefetch
	// laterTimer wakes the loop at laterAt for the message notices put off.
	laterTimer *time.Timer
	laterAt    time.Time
}

// NewFollower returns a follower of sessions on host; now is the engine's
// clock and pollEvery the run's polling interval.
func NewFollower(host session.Host, now func() time.Time, pollEvery time.Duration) *Follower {
	return &Follower{host: host, now: now, pollEvery: pollEvery, wake: make(chan struct{}, 1),
		dirty: map[session.ID]session.NoticeKind{}}
}

// Wake is where the run's loop learns that a session changed.
func (f *Follower) Wake() <-chan struct{} { return f.wake }

// Mark notes that session id changed and wakes the loop. Safe from any
// goroutine.
func (f *Follower) Mark(id session.ID, kind session.NoticeKind) {
	f.mu.Lock()
	f.dirty[id] = kind
	f.mu.Unlock()
	f.poke()
}

func (f *Follower) poke() {
	select {
	case f.wake <- struct{}{}:
	default:
	}
}

// Take returns the sessions that changed since the last call.
func (f *Follower) Take() map[session.ID]session.NoticeKind {
	f.mu.Lock()
	defer f.mu.Unlock()
	d := f.dirty
	f.dirty = map[session.ID]session.NoticeKind{}
	return d
}

// Later keeps session id dirty, without waking the loop now, and makes
// sure the loop wakes within after to read it.
func (f *Follower) Later(id session.ID, after time.Duration) {
	f.mu.Lock()
	if _, ok := f.dirty[id]; !ok {
		f.dirty[id] = session.NoticeMessage
	}
	f.mu.Unlock()
	now := time.Now()
	due := now.Add(after)
	if f.laterTimer != nil && f.laterAt.After(now) && !due.Before(f.laterAt) {
		return // the pending wake comes in time
	}
	if f.laterTimer != nil {
		f.laterTimer.Stop()
	}
	f.laterAt = due
	f.laterTimer = time.AfterFunc(after, f.poke)
}

// Stop stops the read-later timer.
func (f *Follower) Stop() {
	if f.laterTimer != nil {
		f.laterTimer.Stop()
	}
}

// Prefetch reads the sessions ids from cursors concurrently; Absorb takes
// the results.
func (f *Follower) Prefetch(ctx context.Context, ids []session.ID, cursors []session.Cursor) {
	out := make([]prefetch, len(ids))
	var wg sync.WaitGroup
	for i := range ids {
		out[i].cursor = cursors[i]
		wg.Add(1)
		go func() {
			defer wg.Done()
			out[i].batch, out[i].err = f.host.Read(ctx, ids[i], cursors[i])
		}()
	}
	wg.Wait()
	f.prefetched = make(map[session.ID]prefetch, len(ids))
	for i, id := range ids {
		f.prefetched[id] = out[i]
	}
}

// DropPrefetched forgets the reads made ahead that were not used.
func (f *Follower) DropPrefetched() { f.prefetched = nil }

// read returns the entries of session id after c: the prefetched ones when
// they were read ahead from the same cursor, otherwise a Read.
func (f *Follower) read(ctx context.Context, id session.ID, c session.Cursor) (session.Batch, error) {
	if p, ok := f.prefetched[id]; ok {
		delete(f.prefetched, id)
		if p.cursor == c {
			return p.batch, p.err
		}
	}
	return f.host.Read(ctx, id, c)
}

// Absorb reads the new entries of session id into c and returns what they
// say.
func (f *Follower) Absorb(ctx context.Context, id session.ID, c *Cursor) (Digest, error) {
	batch, err := f.read(ctx, id, c.At)
	if err != nil {
		c.failures++
		return Digest{}, err
	}
	c.failures = 0
	c.lastRead = time.Now()
	c.more = batch.Next.Index < batch.Total
	raw := batch.Entries
	first := batch.Next.Index - len(raw)
	if batch.Reset {
		// The transcript was rewritten: start again after the prompt.
		c.entries, c.assistant, c.result = nil, false, false
		c.retry, c.retrying, c.outage, c.answered, c.resultError, c.cut = nil, false, nil, false, "", false
		c.running = nil
		skip := c.Prompt.Index
		if skip > len(raw) {
			skip = len(raw)
		}
		raw = raw[skip:]
		first = skip
		c.replayTo = 0
	}
	var counted []json.RawMessage
	var replayed []json.RawMessage
	for i, e := range raw {
		if first+i < c.replayTo {
			replayed = append(replayed, e)
		} else {
			counted = append(counted, e)
		}
	}
	if len(replayed) > 0 {
		// Counted before a restart: their usage and cost are in the store,
		// and the book learns them so that later entries and the turn's
		// result do not count them again.
		rd := digest(replayed, c.usageSeen())
		c.calls(rd, f.now())
		c.take(rd)
	}
	d := digest(counted, c.usageSeen())
	c.calls(d, f.now())
	c.take(d)
	c.count(d)
	c.At = batch.Next
	if len(batch.Entries) > 0 {
		c.lastEntry = f.now()
	}
	if batch.Next.Index < batch.Total {
		// The host returned a part: read the rest on the next step.
		f.Mark(id, session.NoticeMessage)
	}
	return d, nil
}

// ReadToEnd reads (and counts the usage of) everything of session id after
// c's cursor and returns the end.
func (f *Follower) ReadToEnd(ctx context.Context, id session.ID, c *Cursor) (session.Cursor, error) {
	at := c.At
	for {
		b, err := f.host.Read(ctx, id, at)
		if err != nil {
			return at, err
		}
		d := digest(b.Entries, c.usageSeen())
		c.count(d)
		if b.Next.Index >= b.Total || len(b.Entries) == 0 {
			return b.Next, nil
		}
		at = b.Next
	}
}

// TurnOver reports whether the session has finished answering the prompt:
// a result entry arrived, or (for a host whose transcript has none) the
// session reports no turn running and nothing new came for a grace period,
// since a host's turn state may lag behind its transcript. A host that does
// not report turns (TurnUnknown: only isRunning, which means the process is
// alive) ends a turn with its result only.
func (f *Follower) TurnOver(ctx context.Context, id session.ID, c *Cursor) (session.Info, bool) {
	info, err := f.host.Session(ctx, id)
	if err != nil {
		return info, c.result
	}
	grace := 2 * f.pollEvery
	if grace < time.Second {
		grace = time.Second
	}
	quiet := !c.lastEntry.IsZero() && f.now().Sub(c.lastEntry) >= grace
	return info, c.result || (c.assistant && !info.TurnUnknown && !info.TurnRunning && quiet)
}
