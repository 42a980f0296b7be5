package transcript

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/baton-app/baton/backend/store"
)

func TestDigestEntries(t *testing.T) {
	t.Parallel()
	raw := [][]byte{
		[]byte(`{"type":"user","message":{"role":"user","content":"go"}}`),
		[]byte(`{"type":"assistant","message":{"id":"m1","content":[{"type":"tool_use","name":"Read","input":{"file_path":"/p/a.go"}}],"usage":{"input_tokens":10,"output_tokens":2,"cache_read_input_tokens":5}}}`),
		[]byte(`{"type":"assistant","message":{"id":"m1","content":[{"type":"tool_use","name":"Edit","input":{"file_path":"/p/b.go"}}],"usage":{"input_tokens":10,"output_tokens":2,"cache_read_input_tokens":5}}}`),
		[]byte(`{"type":"assistant","message":{"id":"m2","content":[{"type":"tool_use","name":"WebFetch","input":{"url":"https://x"}},{"type":"tool_use","name":"Task","input":{"description":"sub"}},{"type":"tool_use","name":"Bash","input":{"command":"go test"}},{"type":"tool_use","name":"Glob","input":{"pattern":"*.go"}},{"type":"tool_use","name":"TodoWrite","input":{}},{"type":"tool_use","name":"Write","input":{"file_path":"/p/c.md"}}],"usage":{"input_tokens":1,"output_tokens":1}}}`),
		[]byte(`{"type":"assistant","isSidechain":true,"message":{"id":"m3","content":[{"type":"tool_use","name":"Read","input":{}}],"usage":{"input_tokens":1000}}}`),
		[]byte(`{"type":"result","subtype":"success","total_cost_usd":0.25}`),
		[]byte(`not json`),
	}
	var msgs []json.RawMessage
	for _, r := range raw {
		msgs = append(msgs, r)
	}
	d := digest(msgs, newUsageBook())
	want := store.ToolStats{Total: 8, Reads: 1, Writes: 1, Edits: 1, Bash: 1, Search: 1, Web: 1, Task: 1, Other: 1}
	if d.Tools != want {
		t.Errorf("tools = %+v, want %+v", d.Tools, want)
	}
	// Cache reads are counted apart from input.
	if d.InputTokens != 11 || d.CacheRead != 5 || d.OutputTokens != 3 || d.CostUSD != 0.25 || !d.Result || !d.Assistant {
		t.Errorf("usage = %d/%d (cache reads %d) $%v result=%v", d.InputTokens, d.OutputTokens, d.CacheRead, d.CostUSD, d.Result)
	}
	if got := RelFiles("/p", d.Files); strings.Join(got, ",") != "b.go,c.md" {
		t.Errorf("files = %v", got)
	}
	if d.LastAction != "Write c.md" {
		t.Errorf("last action = %q", d.LastAction)
	}
}
