package transcript

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/baton-app/baton/backend/session"
)

// A result wrapped in the entry's message, with camelCase fields, ends the
// turn and carries its cost and usage like the CLI's top-level snake_case
// result.
func TestDigestWrappedCamelCaseResult(t *testing.T) {
	t.Parallel()
	book := newUsageBook()
	d := digest(lines(
		`{"type":"assistant","uuid":"a1","message":{"id":"m1","content":[{"type":"text","text":"Working."}],"usage":{"input_tokens":100,"cache_read_input_tokens":40,"output_tokens":2}}}`,
		`{"type":"assistant","uuid":"a2","message":{"id":"m1","content":[{"type":"text","text":"Done."}],"usage":{"input_tokens":100,"cache_read_input_tokens":40,"output_tokens":30}}}`,
		`{"uuid":"r1","sessionId":"cli-uuid","message":{"type":"result","subtype":"error_during_execution","isError":true,"numTurns":1,"result":"it broke","totalCostUsd":0.5,`+
			`"modelUsageSinceLastResult":{"m":{"costUSD":0.125}},"usage":{"inputTokens":150,"outputTokens":30,"cacheReadInputTokens":40,"cacheCreationInputTokens":8}}}`,
	), book)
	if !d.Result {
		t.Fatal("the wrapped result did not end the turn")
	}
	if d.ResultError != "it broke" {
		t.Errorf("result error = %q, want the wrapped result's text (isError)", d.ResultError)
	}
	if math.Abs(d.CostUSD-0.125) > 1e-9 {
		t.Errorf("cost = %v, want 0.125 (the turn's part)", d.CostUSD)
	}
	if d.InputTokens != 150 || d.OutputTokens != 30 || d.CacheRead != 40 || d.CacheWrite != 8 {
		t.Errorf("tokens %d in, %d out, %d cache reads, %d cache writes; want 150, 30, 40, 8", d.InputTokens, d.OutputTokens, d.CacheRead, d.CacheWrite)
	}
	// A top-level camelCase result without the since-last map: its total
	// cost is the turn's.
	d2 := digest(lines(`{"type":"result","subtype":"success","isError":false,"numTurns":2,"totalCostUsd":0.25}`), newUsageBook())
	if !d2.Result || d2.ResultError != "" || math.Abs(d2.CostUSD-0.25) > 1e-9 {
		t.Errorf("top-level camelCase result: %+v", d2)
	}
}

// sessionStateHost reports one session state.
type sessionStateHost struct {
	transcriptHost
	info session.Info
}

func (h *sessionStateHost) Session(ctx context.Context, id session.ID) (session.Info, error) {
	return h.info, nil
}

// A host that says only isRunning (the process is alive) never ends a turn
// by quiet: the result does.
func TestTurnOverNeedsResultWhenTurnUnknown(t *testing.T) {
	t.Parallel()
	now := time.Now()
	clock := func() time.Time { return now }
	h := &sessionStateHost{info: session.Info{Running: true, TurnRunning: false, TurnUnknown: true}}
	h.entries = lines(`{"type":"assistant","message":{"id":"m1","content":[{"type":"text","text":"Reading files."}]}}`)
	f := NewFollower(h, clock, time.Second)
	var c Cursor
	if _, err := f.Absorb(context.Background(), "s", &c); err != nil {
		t.Fatal(err)
	}
	now = now.Add(time.Minute)
	if _, over := f.TurnOver(context.Background(), "s", &c); over {
		t.Fatal("a quiet session whose turn state is unknown was taken as done")
	}
	h.info.TurnUnknown = false
	if _, over := f.TurnOver(context.Background(), "s", &c); !over {
		t.Fatal("a quiet session that reports no turn running was not taken as done")
	}
	h.info.TurnUnknown = true
	h.mu.Lock()
	h.entries = append(h.entries, lines(`{"uuid":"r","message":{"type":"result","subtype":"success","isError":false}}`)...)
	h.mu.Unlock()
	if _, err := f.Absorb(context.Background(), "s", &c); err != nil {
		t.Fatal(err)
	}
	if _, over := f.TurnOver(context.Background(), "s", &c); !over {
		t.Fatal("the wrapped result did not end the turn")
	}
}
