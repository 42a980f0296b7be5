package transcript

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"
)

func toolUse(id, name, input string) json.RawMessage {
	return json.RawMessage(fmt.Sprintf(`{"type":"assistant","message":{"id":"m-%s","role":"assistant","content":[{"type":"tool_use","id":%q,"name":%q,"input":%s}]}}`, id, id, name, input))
}

func toolResult(id string) json.RawMessage {
	return json.RawMessage(fmt.Sprintf(`{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":%q,"content":"ok"}]}}`, id))
}

// A tool call runs from the read that saw it until its result; the latest
// of several is the one shown; a turn's result ends them all; a call of a
// sidechain (a subagent's) is not the session's own.
func TestCursorRunningFollowsCallsAndResults(t *testing.T) {
	t.Parallel()
	h := &transcriptHost{}
	clock := time.Date(2026, 11, 26, 9, 0, 0, 0, time.UTC)
	f := NewFollower(h, func() time.Time { return clock }, time.Second)
	var c Cursor
	step := func(entries ...json.RawMessage) {
		t.Helper()
		h.mu.Lock()
		h.entries = append(h.entries, entries...)
		h.mu.Unlock()
		if _, err := f.Absorb(context.Background(), "s", &c); err != nil {
			t.Fatal(err)
		}
	}
	if c.Running() != nil {
		t.Fatal("a fresh cursor has a running tool")
	}
	step(toolUse("t1", "Bash", `{"command":"go   test ./...","description":"Run the tests"}`))
	r := c.Running()
	if r == nil || r.Name != "Bash" || r.Input != "go test ./..." || !r.StartedAt.Equal(clock) {
		t.Fatalf("running = %+v, want Bash go test ./... since %v", r, clock)
	}
	started := clock
	clock = clock.Add(40 * time.Second)
	step(toolUse("t2", "Read", `{"file_path":"/p/a.go"}`))
	if r := c.Running(); r == nil || r.Name != "Read" || r.Input != "/p/a.go" || !r.StartedAt.Equal(clock) {
		t.Fatalf("running = %+v, want the latest call", r)
	}
	step(toolResult("t2"))
	if r := c.Running(); r == nil || r.Name != "Bash" || !r.StartedAt.Equal(started) {
		t.Fatalf("after Read's result running = %+v, want Bash since its call", r)
	}
	step(json.RawMessage(`{"type":"assistant","isSidechain":true,"message":{"content":[{"type":"tool_use","id":"s1","name":"Grep","input":{}}]}}`))
	if r := c.Running(); r == nil || r.Name != "Bash" {
		t.Fatalf("a sidechain's call became the running tool: %+v", r)
	}
	step(toolResult("t1"))
	if r := c.Running(); r != nil {
		t.Fatalf("after every result running = %+v", r)
	}
	step(toolUse("t3", "Write", `{"file_path":"/p/b.go"}`), json.RawMessage(`{"type":"result","subtype":"success"}`))
	if r := c.Running(); r != nil {
		t.Fatalf("after the turn's result running = %+v", r)
	}
}
