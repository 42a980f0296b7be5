package transcript

import (
	"encoding/json"
	"math"
	"testing"
)

func lines(ss ...string) []json.RawMessage {
	out := make([]json.RawMessage, len(ss))
	for i, s := range ss {
		out[i] = json.RawMessage(s)
	}
	return out
}

// The Claude Code CLI's stream-json output (shapes of 2.1.328): assistant
// events carry the usage of message_start (output not yet counted), each
// result the turn's usage, and total_cost_usd and modelUsage since the
// process started, with this turn's part in model_usage_since_last_result.
func TestDigestCLIStreamUsageAndCost(t *testing.T) {
	t.Parallel()
	turn := func(msg string, costSoFar, turnCost float64) []string {
		return []string{
			`{"type":"assistant","message":{"content":[{"text":"Let me look.","type":"text"}],"id":"` + msg + `a","usage":{"cache_creation_input_tokens":7,"cache_read_input_tokens":5,"input_tokens":100,"output_tokens":1}},"session_id":"s"}`,
			`{"type":"assistant","message":{"content":[{"id":"toolu_1","input":{"file_path":"/p/a.txt","content":"hi"},"name":"Write","type":"tool_use"}],"id":"` + msg + `a","usage":{"cache_creation_input_tokens":7,"cache_read_input_tokens":5,"input_tokens":100,"output_tokens":1}},"session_id":"s"}`,
			`{"type":"user","message":{"role":"user","content":[{"tool_use_id":"toolu_1","type":"tool_result","content":"File created"}]},"session_id":"s"}`,
			`{"type":"system","subtype":"permission_denied","tool_name":"Write","message":"Claude requested permissions to write","session_id":"s"}`,
			`{"type":"assistant","message":{"content":[{"text":"Done.","type":"text"}],"id":"` + msg + `b","usage":{"cache_creation_input_tokens":7,"cache_read_input_tokens":5,"input_tokens":100,"output_tokens":1}},"session_id":"s"}`,
			`{"type":"result","subtype":"success","is_error":false,"num_turns":2,"result":"Done.","total_cost_usd":` + ftoa(costSoFar) +
				`,"usage":{"input_tokens":200,"cache_creation_input_tokens":14,"cache_read_input_tokens":10,"output_tokens":59},` +
				`"modelUsage":{"claude-opus-5-5":{"inputTokens":200,"outputTokens":59,"costUSD":` + ftoa(costSoFar) + `}},` +
				`"model_usage_since_last_result":{"claude-opus-5-5":{"inputTokens":200,"outputTokens":59,"costUSD":` + ftoa(turnCost) + `}}}`,
		}
	}
	book := newUsageBook()
	// The first turn comes in two reads, the second in one.
	t1 := turn("m1", 0.002052, 0.002052)
	d1 := digest(lines(t1[:3]...), book)
	d2 := digest(lines(t1[3:]...), book)
	d3 := digest(lines(turn("m2", 0.004104, 0.002052)...), book)
	in := d1.InputTokens + d2.InputTokens + d3.InputTokens
	out := d1.OutputTokens + d2.OutputTokens + d3.OutputTokens
	cost := d1.CostUSD + d2.CostUSD + d3.CostUSD
	if in != 400 || out != 118 {
		t.Errorf("tokens = %d in, %d out; want 400, 118 (two turns of the result's usage)", in, out)
	}
	// Cache reads and writes are counted apart from input.
	if cr, cw := d1.CacheRead+d2.CacheRead+d3.CacheRead, d1.CacheWrite+d2.CacheWrite+d3.CacheWrite; cr != 20 || cw != 28 {
		t.Errorf("cache reads %d, writes %d; want 20, 28", cr, cw)
	}
	if math.Abs(cost-0.004104) > 1e-9 {
		t.Errorf("cost = %v, want 0.004104 (the CLI's cost so far, not the sum of its running totals)", cost)
	}
	if d1.Tools.Writes != 1 || d3.Tools.Writes != 1 || !d2.Result || !d3.Result {
		t.Errorf("tools %+v %+v, results %v %v", d1.Tools, d3.Tools, d2.Result, d3.Result)
	}
}

// Claude Code's on-disk transcript has no result lines: cost comes from its
// cost-state lines (cost so far), usage from the assistant lines, merged
// per message id by the largest count.
func TestDigestCLITranscriptUsageAndCost(t *testing.T) {
	t.Parallel()
	book := newUsageBook()
	d := digest(lines(
		`{"type":"queue-operation","operation":"enqueue","content":"write hello","sessionId":"s"}`,
		`{"type":"attachment","attachment":{"type":"environment"},"uuid":"u0"}`,
		`{"type":"api-request-blob","hash":"h","message":{"role":"user","content":[{"type":"text","text":"<system-reminder>x</system-reminder>"}]}}`,
		`{"type":"assistant","uuid":"u1","message":{"id":"m1","content":[{"type":"text","text":"Let me."}],"usage":{"input_tokens":100,"cache_read_input_tokens":5,"output_tokens":3}}}`,
		`{"type":"assistant","uuid":"u2","message":{"id":"m1","content":[{"type":"tool_use","id":"t1","name":"Edit","input":{"file_path":"/p/a.go"}}],"usage":{"input_tokens":100,"cache_read_input_tokens":5,"output_tokens":42}}}`,
		`{"type":"cost-state","totalCostUSD":0.001,"modelUsage":{"m":{"costUSD":0.001}}}`,
	), book)
	d2 := digest(lines(
		`{"type":"assistant","uuid":"u3","message":{"id":"m2","content":[{"type":"text","text":"Done."}],"usage":{"input_tokens":120,"output_tokens":17}}}`,
		`{"type":"last-prompt","lastPrompt":"write hello"}`,
		`{"type":"cost-state","totalCostUSD":0.0025}`,
	), book)
	if got := d.InputTokens + d2.InputTokens; got != 220 {
		t.Errorf("input tokens = %d, want 220 (cache reads apart)", got)
	}
	if got := d.CacheRead + d2.CacheRead; got != 5 {
		t.Errorf("cache reads = %d, want 5 (m1's, once)", got)
	}
	if got := d.OutputTokens + d2.OutputTokens; got != 59 {
		t.Errorf("output tokens = %d, want 59 (42 of m1's last line, not 3 of its first)", got)
	}
	if got := d.CostUSD + d2.CostUSD; math.Abs(got-0.0025) > 1e-9 {
		t.Errorf("cost = %v, want 0.0025", got)
	}
	if d.Tools.Total != 1 || d.Tools.Edits != 1 || len(d.Entries) != 1 || d.Result {
		t.Errorf("tools %+v, %d text entries, result %v", d.Tools, len(d.Entries), d.Result)
	}
}

func ftoa(f float64) string {
	b, _ := json.Marshal(f)
	return string(b)
}
