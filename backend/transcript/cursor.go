package transcript

import (
	"cmp"
	"slices"
	"time"

	"github.com/baton-app/baton/backend/limits"
	"github.com/baton-app/baton/backend/protocol"
	"github.com/baton-app/baton/backend/session"
	"github.com/baton-app/baton/backend/store"
)

// Cursor is where the engine is in one session's transcript and
// what it read there since the last prompt. Its exported fields are stored
// with the run (main session) or the worker, so a restart continues from
// the same place.
type Cursor struct {
	// Prompt is the cursor at the last prompt: answers count only after it.
	Prompt session.Cursor `json:"prompt"`
	// At is how far the transcript has been read.
	At session.Cursor `json:"cursor"`
	// Usage of the session.
	InputTokens  int64   `json:"inputTokens,omitempty"`
	OutputTokens int64   `json:"outputTokens,omitempty"`
	CostUSD      float64 `json:"costUsd,omitempty"`
	// Cache reads and writes, counted apart from InputTokens.
	CacheReadTokens  int64 `json:"cacheReadTokens,omitempty"`
	CacheWriteTokens int64 `json:"cacheWriteTokens,omitempty"`
	// PricedUSD is the cost of its tokens by Baton's price table, the
	// session's cost when the host reports none (Cost).
	PricedUSD float64 `json:"pricedUsd,omitempty"`
	// OpenUSD is the priced cost of the turn that runs, which the host
	// has not reported yet (Cost adds it to the host's cost).
	OpenUSD float64 `json:"openUsd,omitempty"`
	// ShownUSD is the most Cost has said: the figure shown never drops
	// when the host's cost replaces an estimate.
	ShownUSD float64 `json:"shownUsd,omitempty"`

	// In memory only.
	entries   []protocol.Entry
	assistant bool // an assistant entry arrived since the prompt
	result    bool // a result entry arrived since the prompt
	seen      *usageBook
	lastEntry time.Time     // when an entry last arrived (engine clock)
	replayTo  int           // entries before this index were already counted
	failures  int           // consecutive read failures
	lastRead  time.Time     // when the session was last read (wall clock)
	more      bool          // the last read returned a part: more entries wait
	limit     *limits.Limit // a limit an entry since the prompt reported
	// retry is the CLI's last retry since the prompt; retrying: it has not
	// ended yet (no answer, no result after it).
	retry    *limits.Retry
	retrying bool
	outage   *limits.Outage // the turn ended because the model was unreachable
	answered bool           // the model answered since the prompt
	cut      bool           // the turn since the prompt was cut off
	// resultError is the error a result since the prompt ended with.
	resultError string
	running     []runningCall // tool calls without a result yet, oldest first
}

// runningCall is a tool call whose result has not come yet.
type runningCall struct {
	id   string
	tool store.RunningTool
}

// calls follows the tool calls of d, read at now: new calls run until
// their result comes, and a turn's end ends them all.
func (c *Cursor) calls(d Digest, now time.Time) {
	for _, call := range d.Calls {
		c.running = append(c.running, runningCall{id: call.ID, tool: store.RunningTool{Name: call.Name, Input: call.Input, StartedAt: now}})
	}
	for _, id := range d.Done {
		c.running = slices.DeleteFunc(c.running, func(r runningCall) bool { return r.id == id })
	}
	if d.Result {
		c.running = nil
	}
}

// Running is the latest tool call that has no result yet (nil: none runs).
func (c *Cursor) Running() *store.RunningTool {
	if len(c.running) == 0 {
		return nil
	}
	t := c.running[len(c.running)-1].tool
	return &t
}

// Reset starts reading anew at a prompt sent at cursor at.
func (c *Cursor) Reset(at session.Cursor) {
	c.Prompt, c.At = at, at
	c.entries, c.assistant, c.result = nil, false, false
	c.replayTo = 0
	c.limit = nil
	c.retry, c.retrying, c.outage = nil, false, nil
	c.answered, c.resultError, c.cut = false, "", false
}

// Replay reads again from the prompt (after a restore), so the answer can
// be found; entries already counted are not counted twice.
func (c *Cursor) Replay() {
	c.replayTo = c.At.Index
	c.At = c.Prompt
}

// count adds the usage and cost of d.
func (c *Cursor) count(d Digest) {
	c.InputTokens += d.InputTokens
	c.OutputTokens += d.OutputTokens
	c.CacheReadTokens += d.CacheRead
	c.CacheWriteTokens += d.CacheWrite
	c.CostUSD += d.CostUSD
	c.PricedUSD += d.PricedUSD
	if d.Settled {
		c.OpenUSD = d.OpenPricedUSD
	} else {
		c.OpenUSD += d.OpenPricedUSD
	}
}

// usageSeen is what was counted of the session's usage, per message id.
func (c *Cursor) usageSeen() *usageBook {
	if c.seen == nil {
		c.seen = newUsageBook()
	}
	return c.seen
}

// Entries are what the agent said since the prompt: the entries with text.
func (c *Cursor) Entries() []protocol.Entry { return c.entries }

// Replied reports whether the session answered since the prompt: an
// assistant entry or a result arrived.
func (c *Cursor) Replied() bool { return c.assistant || c.result }

// Assistant reports whether an assistant entry arrived since the prompt.
func (c *Cursor) Assistant() bool { return c.assistant }

// Limit is the limit an entry since the prompt reported, if any. When the
// CLI retried before it gave up, the wait starts with its last delay
// (limits.Limit.WithRetry).
func (c *Cursor) Limit() *limits.Limit {
	if c.limit == nil {
		return nil
	}
	l := c.limit.WithRetry(c.retry)
	return &l
}

// Retrying is the retry of a request to the model the CLI waits for now
// (nil: none).
func (c *Cursor) Retrying() *limits.Retry {
	if !c.retrying {
		return nil
	}
	return c.retry
}

// Outage is why the turn since the prompt ended without reaching the model
// (nil: it did not).
func (c *Cursor) Outage() *limits.Outage { return c.outage }

// take notes what a digest says about the model's answers.
func (c *Cursor) take(d Digest) {
	c.entries = append(c.entries, d.Entries...)
	c.assistant = c.assistant || d.Assistant
	c.result = c.result || d.Result
	c.limit = cmp.Or(d.Limit, c.limit)
	if d.Retry != nil {
		c.retry = d.Retry
	}
	switch {
	case d.Retrying:
		c.retrying = true
	case d.Assistant || d.Result:
		c.retrying = false
	}
	c.outage = cmp.Or(d.Outage, c.outage)
	c.answered = c.answered || d.Answered
	c.cut = c.cut || d.Cut
	c.resultError = cmp.Or(d.ResultError, c.resultError)
}

// Cut reports whether the turn since the prompt was cut off before it
// ended by itself (its process exited, or Baton stopped while it ran).
func (c *Cursor) Cut() bool { return c.cut }

// Answered reports whether the model answered since the prompt (an API
// error the CLI wrote in its place is no answer).
func (c *Cursor) Answered() bool { return c.answered }

// Failed is the error the turn since the prompt ended with when the model
// never answered in it: the CLI's own sentence (it refused to run, the API
// refused the request), "" otherwise. A limit and an outage are waits, not
// failures (Limit, Outage).
func (c *Cursor) Failed() string {
	if c.answered || c.limit != nil || c.outage != nil {
		return ""
	}
	return c.resultError
}

// Failures counts the reads that failed in a row.
func (c *Cursor) Failures() int { return c.failures }

// Reconnected forgets the failed reads: the host is back.
func (c *Cursor) Reconnected() { c.failures = 0 }

// More reports whether the last read returned only a part: more entries
// wait.
func (c *Cursor) More() bool { return c.more }

// LastRead is when the session was last read (wall clock).
func (c *Cursor) LastRead() time.Time { return c.lastRead }

// Cost is the session's cost: the host's own where it reported one, with
// the price table's estimate of the turn it has not reported yet, else the
// one priced from its tokens; estimated says whether an estimate is part
// of it. The figure never drops: when the host's cost comes in below the
// estimate that was shown, the estimate stays, still marked estimated.
func (c *Cursor) Cost() (usd float64, estimated bool) {
	switch {
	case c.CostUSD > 0:
		usd, estimated = c.CostUSD+c.OpenUSD, c.OpenUSD > 0
	case c.PricedUSD > 0:
		usd, estimated = c.PricedUSD, true
	}
	if usd < c.ShownUSD {
		usd, estimated = c.ShownUSD, true
	}
	c.ShownUSD = usd
	return usd, estimated
}
