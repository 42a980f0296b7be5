package engine

import (
	"cmp"
	"context"
	"encoding/json"
	"sync"
	"time"

	"github.com/baton-app/baton/backend/protocol"
	"github.com/baton-app/baton/backend/session"
)

// messageReadGap is the least time between two reads of a worker session
// prompted only by "message" notices. An agent adds entries in bursts (tool
// call, tool result, text), each with its notice; reading at every one would
// keep the run's goroutine busy with progress while another worker's result
// waits. A "result", "updated" or "permission" notice is read at once.
const messageReadGap = 100 * time.Millisecond

// transcriptCursor is where the engine is in one session's transcript and
// what it read there since the last prompt. Its exported fields are stored
// with the run (main session) or the worker, so a restart continues from
// the same place.
type transcriptCursor struct {
	// Prompt is the cursor at the last prompt: answers count only after it.
	Prompt session.Cursor `json:"prompt"`
	// Cursor is how far the transcript has been read.
	Cursor session.Cursor `json:"cursor"`
	// Usage of the session.
	InputTokens  int64   `json:"inputTokens,omitempty"`
	OutputTokens int64   `json:"outputTokens,omitempty"`
	CostUSD      float64 `json:"costUsd,omitempty"`
	// Cache reads and writes, counted apart from InputTokens.
	CacheReadTokens  int64 `json:"cacheReadTokens,omitempty"`
	CacheWriteTokens int64 `json:"cacheWriteTokens,omitempty"`
	// PricedUSD is the cost of its tokens by Baton's price table, the
	// session's cost when the host reports none (cost.go).
	PricedUSD float64 `json:"pricedUsd,omitempty"`

	// In memory only.
	entries   []protocol.Entry
	assistant bool // an assistant entry arrived since the prompt
	result    bool // a result entry arrived since the prompt
	seen      *usageBook
	lastEntry time.Time // when an entry last arrived (engine clock)
	replayTo  int       // entries before this index were already counted
	failures  int       // consecutive read failures
	lastRead  time.Time // when the session was last read (wall clock)
	more      bool      // the last read returned a part: more entries wait
	limit     *Limit    // a limit an entry since the prompt reported
}

// reset starts reading anew at a prompt sent at cursor at.
func (c *transcriptCursor) reset(at session.Cursor) {
	c.Prompt, c.Cursor = at, at
	c.entries, c.assistant, c.result = nil, false, false
	c.replayTo = 0
	c.limit = nil
}

// replay reads again from the prompt (after a restore), so the answer can
// be found; entries already counted are not counted twice.
func (c *transcriptCursor) replay() {
	c.replayTo = c.Cursor.Index
	c.Cursor = c.Prompt
}

// count adds the usage and cost of d.
func (c *transcriptCursor) count(d digest) {
	c.InputTokens += d.inputTokens
	c.OutputTokens += d.outputTokens
	c.CacheReadTokens += d.cacheRead
	c.CacheWriteTokens += d.cacheWrite
	c.CostUSD += d.costUSD
	c.PricedUSD += d.pricedUSD
}

// usageSeen is what was counted of the session's usage, per message id.
func (c *transcriptCursor) usageSeen() *usageBook {
	if c.seen == nil {
		c.seen = newUsageBook()
	}
	return c.seen
}

// prefetch is one Read made ahead by step.
type prefetch struct {
	cursor session.Cursor
	batch  session.Batch
	err    error
}

// follower follows a run's sessions: which of them changed (the dirty set
// fed by host notices), reading them (all at once when several are due,
// one read per messageReadGap for bursts of message notices) and absorbing
// what they wrote into their transcriptCursor.
type follower struct {
	host      session.Host
	hostWait  time.Duration
	now       func() time.Time // the engine's clock
	pollEvery time.Duration
	// wake wakes the run's loop.
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

func newFollower(host session.Host, hostWait time.Duration, now func() time.Time, pollEvery time.Duration) *follower {
	return &follower{host: host, hostWait: hostWait, now: now, pollEvery: pollEvery, wake: make(chan struct{}, 1),
		dirty: map[session.ID]session.NoticeKind{}}
}

func (f *follower) hostCtx(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, f.hostWait)
}

// mark notes that session id changed and wakes the loop. Safe from any
// goroutine.
func (f *follower) mark(id session.ID, kind session.NoticeKind) {
	f.mu.Lock()
	f.dirty[id] = kind
	f.mu.Unlock()
	f.poke()
}

func (f *follower) poke() {
	select {
	case f.wake <- struct{}{}:
	default:
	}
}

// take returns the sessions that changed since the last call.
func (f *follower) take() map[session.ID]session.NoticeKind {
	f.mu.Lock()
	defer f.mu.Unlock()
	d := f.dirty
	f.dirty = map[session.ID]session.NoticeKind{}
	return d
}

// later keeps session id dirty, without waking the loop now, and makes
// sure the loop wakes within after to read it.
func (f *follower) later(id session.ID, after time.Duration) {
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

// stop stops the read-later timer.
func (f *follower) stop() {
	if f.laterTimer != nil {
		f.laterTimer.Stop()
	}
}

// prefetch reads the sessions ids from cursors concurrently; read and
// absorb take the results.
func (f *follower) prefetch(ctx context.Context, ids []session.ID, cursors []session.Cursor) {
	out := make([]prefetch, len(ids))
	var wg sync.WaitGroup
	for i := range ids {
		out[i].cursor = cursors[i]
		wg.Add(1)
		go func() {
			defer wg.Done()
			hctx, cancel := f.hostCtx(ctx)
			defer cancel()
			out[i].batch, out[i].err = f.host.Read(hctx, ids[i], cursors[i])
		}()
	}
	wg.Wait()
	f.prefetched = make(map[session.ID]prefetch, len(ids))
	for i, id := range ids {
		f.prefetched[id] = out[i]
	}
}

// dropPrefetched forgets the reads made ahead that were not used.
func (f *follower) dropPrefetched() { f.prefetched = nil }

// read returns the entries of session id after c: the prefetched ones when
// they were read ahead from the same cursor, otherwise a Read.
func (f *follower) read(ctx context.Context, id session.ID, c session.Cursor) (session.Batch, error) {
	if p, ok := f.prefetched[id]; ok {
		delete(f.prefetched, id)
		if p.cursor == c {
			return p.batch, p.err
		}
	}
	hctx, cancel := f.hostCtx(ctx)
	defer cancel()
	return f.host.Read(hctx, id, c)
}

// absorb reads the new entries of session id into c.
func (f *follower) absorb(ctx context.Context, id session.ID, c *transcriptCursor) (digest, error) {
	batch, err := f.read(ctx, id, c.Cursor)
	if err != nil {
		c.failures++
		return digest{}, err
	}
	c.failures = 0
	c.lastRead = time.Now()
	c.more = batch.Next.Index < batch.Total
	raw := batch.Entries
	first := batch.Next.Index - len(raw)
	if batch.Reset {
		// The transcript was rewritten: start again after the prompt.
		c.entries, c.assistant, c.result = nil, false, false
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
		rd := digestEntries(replayed, c.usageSeen())
		c.entries = append(c.entries, rd.entries...)
		c.assistant = c.assistant || rd.assistant
		c.result = c.result || rd.result
		c.limit = cmp.Or(rd.limit, c.limit)
	}
	d := digestEntries(counted, c.usageSeen())
	c.entries = append(c.entries, d.entries...)
	c.assistant = c.assistant || d.assistant
	c.result = c.result || d.result
	c.limit = cmp.Or(d.limit, c.limit)
	c.count(d)
	c.Cursor = batch.Next
	if len(batch.Entries) > 0 {
		c.lastEntry = f.now()
	}
	if batch.Next.Index < batch.Total {
		// The host returned a part: read the rest on the next step.
		f.mark(id, session.NoticeMessage)
	}
	return d, nil
}

// readToEnd reads (and counts the usage of) everything of session id after
// c's cursor and returns the end.
func (f *follower) readToEnd(ctx context.Context, id session.ID, c *transcriptCursor) (session.Cursor, error) {
	at := c.Cursor
	for {
		b, err := f.host.Read(ctx, id, at)
		if err != nil {
			return at, err
		}
		d := digestEntries(b.Entries, c.usageSeen())
		c.count(d)
		if b.Next.Index >= b.Total || len(b.Entries) == 0 {
			return b.Next, nil
		}
		at = b.Next
	}
}

// turnOver reports whether the session has finished answering the prompt:
// a result entry arrived, or (for a host whose transcript has none) the
// session reports no turn running and nothing new came for a grace period,
// since a host's turn state may lag behind its transcript. A host that does
// not report turns (TurnUnknown: only isRunning, which means the process is
// alive) ends a turn with its result only.
func (f *follower) turnOver(ctx context.Context, id session.ID, c *transcriptCursor) (session.Info, bool) {
	hctx, cancel := f.hostCtx(ctx)
	defer cancel()
	info, err := f.host.Session(hctx, id)
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
