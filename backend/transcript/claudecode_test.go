package transcript

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/baton-app/baton/backend/claudecodetest"
)

// cliTotals is what the CLI itself says a recording cost: from stream-json,
// the results' usage (per turn) and the last result's total_cost_usd (since
// the process started); from the transcript on disk, the last cost-state
// line's modelUsage and totalCostUSD.
type cliTotals struct {
	in, out int64
	cost    float64
	tools   map[string]int
}

func streamTotals(t *testing.T, lines []json.RawMessage) cliTotals {
	t.Helper()
	tot := cliTotals{tools: map[string]int{}}
	for _, l := range lines {
		var e struct {
			Type         string    `json:"type"`
			TotalCostUSD float64   `json:"total_cost_usd"`
			Usage        usageJSON `json:"usage"`
		}
		if err := json.Unmarshal(l, &e); err != nil {
			t.Fatal(err)
		}
		switch e.Type {
		case "result":
			tot.in += e.Usage.InputTokens
			tot.out += e.Usage.OutputTokens
			tot.cost = e.TotalCostUSD
		case "assistant":
			countToolUses(t, l, tot.tools)
		}
	}
	return tot
}

func transcriptTotals(t *testing.T, lines []json.RawMessage) cliTotals {
	t.Helper()
	tot := cliTotals{tools: map[string]int{}}
	for _, l := range lines {
		var e struct {
			Type         string  `json:"type"`
			TotalCostUSD float64 `json:"totalCostUSD"`
			ModelUsage   map[string]struct {
				InputTokens, OutputTokens, CacheReadInputTokens, CacheCreationInputTokens int64
			} `json:"modelUsage"`
		}
		if err := json.Unmarshal(l, &e); err != nil {
			t.Fatal(err)
		}
		switch e.Type {
		case "cost-state":
			tot.in, tot.out, tot.cost = 0, 0, e.TotalCostUSD
			for _, u := range e.ModelUsage {
				tot.in += u.InputTokens
				tot.out += u.OutputTokens
			}
		case "assistant":
			countToolUses(t, l, tot.tools)
		}
	}
	return tot
}

// countToolUses counts the tool_use blocks of an assistant line by name.
func countToolUses(t *testing.T, line json.RawMessage, into map[string]int) {
	var e struct {
		IsSidechain bool `json:"isSidechain"`
		Message     struct {
			Content []map[string]any `json:"content"`
		} `json:"message"`
	}
	if err := json.Unmarshal(line, &e); err != nil {
		t.Fatal(err)
	}
	if e.IsSidechain {
		return
	}
	for _, b := range e.Message.Content {
		if b["type"] == "tool_use" {
			name, _ := b["name"].(string)
			into[name]++
		}
	}
}

// The statistics on what the real Claude Code CLI printed and wrote to disk
// (backend/claudecodetest/testdata/recordings): tool counts from its
// tool_use blocks, tokens as its own totals say, cost as its results (or,
// on disk, its cost-state lines) say; the same from both files.
func TestStatisticsOnRealCLIRecordings(t *testing.T) {
	t.Parallel()
	for _, rec := range claudecodetest.Recordings(t) {
		t.Run(rec.Name, func(t *testing.T) {
			t.Parallel()
			for _, f := range []struct {
				name  string
				lines []json.RawMessage
				want  cliTotals
			}{
				{"stream.jsonl", rec.StreamLines(), streamTotals(t, rec.StreamLines())},
				{"transcript.jsonl", rec.TranscriptLines(), transcriptTotals(t, rec.TranscriptLines())},
			} {
				// Read in batches of 3 lines, as polls would.
				book := newUsageBook()
				var in, out int64
				var cost float64
				var tools = map[string]int{}
				var stats Digest
				for i := 0; i < len(f.lines); i += 3 {
					d := digest(f.lines[i:min(i+3, len(f.lines))], book)
					in += d.InputTokens
					out += d.OutputTokens
					cost += d.CostUSD
					stats.Tools.Total += d.Tools.Total
					stats.Tools.Reads += d.Tools.Reads
					stats.Tools.Writes += d.Tools.Writes
					stats.Tools.Edits += d.Tools.Edits
					stats.Tools.Bash += d.Tools.Bash
					stats.Tools.Other += d.Tools.Other
					stats.Tools.Search += d.Tools.Search
				}
				for name, n := range f.want.tools {
					tools[toolKind(name)] += n
				}
				total := 0
				for _, n := range f.want.tools {
					total += n
				}
				if stats.Tools.Total != total || stats.Tools.Reads != tools["reads"] || stats.Tools.Writes != tools["writes"] ||
					stats.Tools.Edits != tools["edits"] || stats.Tools.Bash != tools["bash"] || stats.Tools.Other != tools["other"] {
					t.Errorf("%s: tools %+v, the tool_use blocks say %v", f.name, stats.Tools, f.want.tools)
				}
				if in != f.want.in || out != f.want.out {
					t.Errorf("%s: tokens %d in, %d out; the CLI says %d, %d", f.name, in, out, f.want.in, f.want.out)
				}
				if math.Abs(cost-f.want.cost) > 1e-9 {
					t.Errorf("%s: cost %v, the CLI says %v", f.name, cost, f.want.cost)
				}
			}
			s, d := streamTotals(t, rec.StreamLines()), transcriptTotals(t, rec.TranscriptLines())
			if s.in != d.in || s.out != d.out || math.Abs(s.cost-d.cost) > 1e-9 {
				t.Errorf("stream-json says %d/%d $%v, the transcript on disk %d/%d $%v", s.in, s.out, s.cost, d.in, d.out, d.cost)
			}
		})
	}
}
