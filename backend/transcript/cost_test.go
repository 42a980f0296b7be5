package transcript

import (
	"encoding/json"
	"math"
	"strconv"
	"testing"
)

// A host that reports tokens without a cost gets the price table's cost,
// marked estimated; a host's own cost wins once it reports one.
func TestCostFromPriceTable(t *testing.T) {
	entries := []json.RawMessage{
		json.RawMessage(`{"type":"assistant","message":{"id":"m1","model":"claude-sonnet-4-5","usage":{"input_tokens":1000,"output_tokens":10,"cache_read_input_tokens":2000,"cache_creation_input_tokens":500}}}`),
		// The same message again with its final output count: only the
		// difference is new.
		json.RawMessage(`{"type":"assistant","message":{"id":"m1","model":"claude-sonnet-4-5","usage":{"input_tokens":1000,"output_tokens":200,"cache_read_input_tokens":2000,"cache_creation_input_tokens":500}}}`),
		json.RawMessage(`{"type":"assistant","message":{"id":"m2","model":"claude-haiku-4-5","usage":{"input_tokens":100,"output_tokens":100}}}`),
		// A model the table does not know costs nothing.
		json.RawMessage(`{"type":"assistant","message":{"id":"m3","model":"<synthetic>","usage":{"input_tokens":100,"output_tokens":100}}}`),
	}
	var c Cursor
	d := digest(entries, c.usageSeen())
	c.InputTokens, c.OutputTokens, c.CostUSD, c.PricedUSD = d.InputTokens, d.OutputTokens, d.CostUSD, d.PricedUSD
	want := (1000*3+200*15+2000*0.30+500*3.75)/1e6 + (100*1.0+100*5.0)/1e6
	usd, est := c.Cost()
	if math.Abs(usd-want) > 1e-12 || !est {
		t.Fatalf("cost %v estimated %v, want %v estimated", usd, est, want)
	}
	d = digest([]json.RawMessage{json.RawMessage(`{"type":"result","total_cost_usd":0.5}`)}, c.usageSeen())
	c.CostUSD += d.CostUSD
	if usd, est := c.Cost(); usd != 0.5 || est {
		t.Errorf("with the host's cost: %v %v", usd, est)
	}
}

// The cost shown never drops: an estimate of the turn that runs is added
// to what the host reported; when the host's cost of that turn comes in
// lower, the estimate stays, still marked estimated, until the reported
// cost passes it.
func TestCostNeverDrops(t *testing.T) {
	priced := func(id string, out int) json.RawMessage {
		return json.RawMessage(`{"type":"assistant","message":{"id":"` + id + `","model":"claude-sonnet-4-5","usage":{"input_tokens":0,"output_tokens":` +
			strconv.Itoa(out) + `}}}`)
	}
	var c Cursor
	step := func(raw ...json.RawMessage) (float64, bool) {
		c.count(digest(raw, c.usageSeen()))
		return c.Cost()
	}
	// 38 000 output tokens of Sonnet: $0.57, estimated.
	if usd, est := step(priced("m1", 38000)); math.Abs(usd-0.57) > 1e-9 || !est {
		t.Fatalf("estimate %v %v", usd, est)
	}
	// The host reports $0.46 for that turn: the figure stays.
	if usd, est := step(json.RawMessage(`{"type":"result","total_cost_usd":0.46}`)); math.Abs(usd-0.57) > 1e-9 || !est {
		t.Fatalf("after the lower reported cost: %v %v", usd, est)
	}
	// The next turn runs: reported $0.46 + its estimate $0.06 is still
	// below what was shown.
	if usd, est := step(priced("m2", 4000)); math.Abs(usd-0.57) > 1e-9 || !est {
		t.Fatalf("during the next turn: %v %v", usd, est)
	}
	// Its reported cost brings the host's total past it: reported.
	if usd, est := step(json.RawMessage(`{"type":"result","total_cost_usd":0.2}`)); math.Abs(usd-0.66) > 1e-9 || est {
		t.Fatalf("after the host's total passed it: %v %v", usd, est)
	}
}
