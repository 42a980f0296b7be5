package engine

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
	d := digestEntries(lines(
		`{"type":"assistant","uuid":"a1","message":{"id":"m1","content":[{"type":"text","text":"Working."}],"usage":{"input_tokens":100,"cache_read_input_tokens":40,"output_tokens":2}}}`,
		`{"type":"assistant","uuid":"a2","message":{"id":"m1","content":[{"type":"text","text":"Done."}],"usage":{"input_tokens":100,"cache_read_input_tokens":40,"output_tokens":30}}}`,
		`{"uuid":"r1","sessionId":"cli-uuid","message":{"type":"result","subtype":"error_during_execution","isError":true,"numTurns":1,"result":"it broke","totalCostUsd":0.5,`+
			`"modelUsageSinceLastResult":{"m":{"costUSD":0.125}},"usage":{"inputTokens":150,"outputTokens":30,"cacheReadInputTokens":40,"cacheCreationInputTokens":8}}}`,
	), book)
	if !d.result {
		t.Fatal("the wrapped result did not end the turn")
	}
	if d.resultError != "it broke" {
		t.Errorf("result error = %q, want the wrapped result's text (isError)", d.resultError)
	}
	if math.Abs(d.costUSD-0.125) > 1e-9 {
		t.Errorf("cost = %v, want 0.125 (the turn's part)", d.costUSD)
	}
	if d.inputTokens != 150 || d.outputTokens != 30 || d.cacheRead != 40 || d.cacheWrite != 8 {
		t.Errorf("tokens %d in, %d out, %d cache reads, %d cache writes; want 150, 30, 40, 8", d.inputTokens, d.outputTokens, d.cacheRead, d.cacheWrite)
	}
	// A top-level camelCase result without the since-last map: its total
	// cost is the turn's.
	d2 := digestEntries(lines(`{"type":"result","subtype":"success","isError":false,"numTurns":2,"totalCostUsd":0.25}`), newUsageBook())
	if !d2.result || d2.resultError != "" || math.Abs(d2.costUSD-0.25) > 1e-9 {
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
	f := newFollower(h, time.Second, clock, time.Second)
	var c transcriptCursor
	if _, err := f.absorb(context.Background(), "s", &c); err != nil {
		t.Fatal(err)
	}
	now = now.Add(time.Minute)
	if _, over := f.turnOver(context.Background(), "s", &c); over {
		t.Fatal("a quiet session whose turn state is unknown was taken as done")
	}
	h.info.TurnUnknown = false
	if _, over := f.turnOver(context.Background(), "s", &c); !over {
		t.Fatal("a quiet session that reports no turn running was not taken as done")
	}
	h.info.TurnUnknown = true
	h.mu.Lock()
	h.entries = append(h.entries, lines(`{"uuid":"r","message":{"type":"result","subtype":"success","isError":false}}`)...)
	h.mu.Unlock()
	if _, err := f.absorb(context.Background(), "s", &c); err != nil {
		t.Fatal(err)
	}
	if _, over := f.turnOver(context.Background(), "s", &c); !over {
		t.Fatal("the wrapped result did not end the turn")
	}
}
