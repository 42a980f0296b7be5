package transcript

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/baton-app/baton/backend/session"
)

// transcriptHost serves one transcript to Read and counts the reads.
type transcriptHost struct {
	session.Host
	mu      sync.Mutex
	entries []json.RawMessage
	reads   int
	part    int // at most this many entries per read (0: all)
	reset   bool
}

func (h *transcriptHost) Read(ctx context.Context, id session.ID, c session.Cursor) (session.Batch, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.reads++
	from := c.Index
	if h.reset {
		h.reset, from = false, 0
	}
	to := len(h.entries)
	if h.part > 0 && to-from > h.part {
		to = from + h.part
	}
	return session.Batch{Entries: h.entries[from:to], Next: session.Cursor{Index: to}, Total: len(h.entries), Reset: from != c.Index}, nil
}

func assistantEntry(id, text string, in int) json.RawMessage {
	return json.RawMessage(fmt.Sprintf(`{"type":"assistant","message":{"id":%q,"role":"assistant","content":[{"type":"text","text":%q}],"usage":{"input_tokens":%d,"output_tokens":1}}}`, id, text, in))
}

func TestFollowerAbsorbsCountsOnceAndReplays(t *testing.T) {
	t.Parallel()
	h := &transcriptHost{entries: []json.RawMessage{assistantEntry("m1", "one", 10), assistantEntry("m1", "one more", 10)}}
	f := NewFollower(h, time.Now, time.Second)
	var c Cursor
	d, err := f.Absorb(context.Background(), "s", &c)
	if err != nil || len(d.Entries) != 2 || !c.assistant || c.At.Index != 2 {
		t.Fatalf("absorb = %+v, %v; cursor %+v", d, err, c.At)
	}
	if c.InputTokens != 10 || c.OutputTokens != 1 {
		t.Errorf("usage %d/%d, want the message's usage once", c.InputTokens, c.OutputTokens)
	}
	// A rewritten transcript starts again after the prompt.
	h.mu.Lock()
	h.entries = append(h.entries, assistantEntry("m2", "two", 5))
	h.reset = true
	h.mu.Unlock()
	c.Prompt = session.Cursor{Index: 1}
	if _, err := f.Absorb(context.Background(), "s", &c); err != nil {
		t.Fatal(err)
	}
	if len(c.entries) != 2 || c.At.Index != 3 || c.InputTokens != 15 {
		t.Errorf("after reset: %d entries, cursor %d, %d input tokens", len(c.entries), c.At.Index, c.InputTokens)
	}
	// A restore reads again from the prompt: the entries come back, their
	// usage is not counted twice.
	c.entries = nil
	c.Replay()
	if _, err := f.Absorb(context.Background(), "s", &c); err != nil {
		t.Fatal(err)
	}
	if len(c.entries) != 2 || c.At.Index != 3 || c.InputTokens != 15 {
		t.Errorf("after replay: %d entries, cursor %d, %d input tokens", len(c.entries), c.At.Index, c.InputTokens)
	}
}

func TestFollowerPartialReadStaysDirty(t *testing.T) {
	t.Parallel()
	h := &transcriptHost{part: 1, entries: []json.RawMessage{assistantEntry("m1", "a", 1), assistantEntry("m2", "b", 1)}}
	f := NewFollower(h, time.Now, time.Second)
	var c Cursor
	if _, err := f.Absorb(context.Background(), "s", &c); err != nil {
		t.Fatal(err)
	}
	if !c.more {
		t.Error("a part was read, more is false")
	}
	if d := f.Take(); d["s"] != session.NoticeMessage {
		t.Errorf("dirty after a part = %v", d)
	}
	select {
	case <-f.wake:
	default:
		t.Error("a partial read did not wake the loop")
	}
}

func TestFollowerPrefetchIsUsedOnceFromTheSameCursor(t *testing.T) {
	t.Parallel()
	h := &transcriptHost{entries: []json.RawMessage{assistantEntry("m1", "a", 1)}}
	f := NewFollower(h, time.Now, time.Second)
	f.Prefetch(context.Background(), []session.ID{"s", "t"}, []session.Cursor{{}, {Index: 1}})
	if h.reads != 2 {
		t.Fatalf("prefetch made %d reads", h.reads)
	}
	if b, err := f.read(context.Background(), "s", session.Cursor{}); err != nil || len(b.Entries) != 1 || h.reads != 2 {
		t.Errorf("read after prefetch = %+v, %v (%d reads)", b, err, h.reads)
	}
	if _, err := f.read(context.Background(), "s", session.Cursor{}); err != nil || h.reads != 3 {
		t.Errorf("second read used the prefetch again (%d reads)", h.reads)
	}
	// Prefetched from another cursor: read again.
	if _, err := f.read(context.Background(), "t", session.Cursor{}); err != nil || h.reads != 4 {
		t.Errorf("read from another cursor used the prefetch (%d reads)", h.reads)
	}
}

func TestFollowerLaterKeepsDirtyAndWakes(t *testing.T) {
	t.Parallel()
	f := NewFollower(&transcriptHost{}, time.Now, time.Second)
	defer f.Stop()
	f.Later("s", 20*time.Millisecond)
	select {
	case <-f.wake:
		t.Fatal("woke at once")
	default:
	}
	select {
	case <-f.wake:
	case <-time.After(5 * time.Second):
		t.Fatal("never woke")
	}
	if d := f.Take(); d["s"] != session.NoticeMessage {
		t.Errorf("dirty = %v", d)
	}
	// A notice that came meanwhile is kept as it was.
	f.Mark("s", session.NoticeResult)
	f.Later("s", time.Millisecond)
	if d := f.Take(); d["s"] != session.NoticeResult {
		t.Errorf("later overwrote a result notice: %v", d)
	}
}
