// Package transcript follows the transcripts of a run's sessions: which
// sessions changed (host notices, else polling), reading only what is new,
// and what the new entries say: the agent's text, its tool calls and the
// files they wrote, usage and cost (the host's own, else priced from Baton's
// price table), the end of a turn and the limits it hit. A session's Cursor
// is stored with the run or the worker, so a restart continues reading where
// it stopped and counts nothing twice.
package transcript

import (
	"encoding/json"
	"path/filepath"
	"strings"

	"github.com/baton-app/baton/backend/limits"
	"github.com/baton-app/baton/backend/protocol"
	"github.com/baton-app/baton/backend/session"
	"github.com/baton-app/baton/backend/store"
)

// rawEntry is what the engine reads from a transcript entry beyond what the
// protocol parser needs: usage and cost.
type rawEntry struct {
	Type    string `json:"type"`
	Message *struct {
		ID    string     `json:"id"`
		Model string     `json:"model"`
		Usage *usageJSON `json:"usage"`
	} `json:"message"`
	// Fields of a result entry (Claude Code's stream-json result event).
	TotalCostUSD float64    `json:"total_cost_usd"`
	Usage        *usageJSON `json:"usage"`
	// ModelUsage is per model since the CLI process started; the
	// since-last-result map is this turn's part of it.
	ModelUsage                map[string]modelUsageJSON `json:"modelUsage"`
	ModelUsageSinceLastResult map[string]modelUsageJSON `json:"model_usage_since_last_result"`
	// TotalCostUSDState is the cost so far of a cost-state line, Claude
	// Code's on-disk transcript's record of cost (it has no result lines).
	TotalCostUSDState float64 `json:"totalCostUSD"`
	// BatonCut marks the result the Claude Code host writes for a turn
	// that no result ended (its process exited, or Baton stopped).
	BatonCut bool `json:"baton_cut"`
}

// usageJSON is the usage of a message or of a turn, as the Messages API
// reports it (snake_case) or as camelCase (usageJSON.UnmarshalJSON reads
// both). Input counts only uncached input: cache reads and cache writes are
// counted apart.
type usageJSON struct {
	InputTokens              int64 `json:"input_tokens"`
	OutputTokens             int64 `json:"output_tokens"`
	CacheCreationInputTokens int64 `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     int64 `json:"cache_read_input_tokens"`
}

type modelUsageJSON struct {
	CostUSD float64 `json:"costUSD"`
}

func sumCost(m map[string]modelUsageJSON) float64 {
	var c float64
	for _, u := range m {
		c += u.CostUSD
	}
	return c
}

// tokens is a count of each kind of token.
type tokens struct{ in, out, cacheRead, cacheWrite int64 }

func (u usageJSON) tokens() tokens {
	return tokens{u.InputTokens, u.OutputTokens, u.CacheReadInputTokens, u.CacheCreationInputTokens}
}

func (t tokens) plus(o tokens) tokens {
	return tokens{t.in + o.in, t.out + o.out, t.cacheRead + o.cacheRead, t.cacheWrite + o.cacheWrite}
}

func (t tokens) minus(o tokens) tokens {
	return tokens{t.in - o.in, t.out - o.out, t.cacheRead - o.cacheRead, t.cacheWrite - o.cacheWrite}
}

// usageBook is what digest remembers of one session between reads,
// so that nothing is counted twice:
//   - per message id, the largest count of each usage field seen (Claude
//     Code writes one line per content block of a message, all under the
//     same message.id, the early ones with a partial output count; its
//     stream-json events carry the usage of message_start, with the output
//     not yet counted);
//   - the tokens counted in the turn that runs, which the turn's result
//     corrects to the usage it reports;
//   - the cost so far of the last cost-state line, and whether any result
//     carried a cost (then cost-state lines are not counted).
type usageBook struct {
	msgs       map[string]usageJSON
	turn       tokens
	resultCost bool
	stateCost  float64
}

func newUsageBook() *usageBook { return &usageBook{msgs: map[string]usageJSON{}} }

// add counts the usage of an assistant entry and returns what is new.
func (b *usageBook) add(id string, u usageJSON) tokens {
	var n tokens
	if id == "" {
		n = u.tokens()
	} else {
		prev := b.msgs[id]
		cur := usageJSON{
			InputTokens:              max(prev.InputTokens, u.InputTokens),
			OutputTokens:             max(prev.OutputTokens, u.OutputTokens),
			CacheCreationInputTokens: max(prev.CacheCreationInputTokens, u.CacheCreationInputTokens),
			CacheReadInputTokens:     max(prev.CacheReadInputTokens, u.CacheReadInputTokens),
		}
		b.msgs[id] = cur
		n = cur.tokens().minus(prev.tokens())
	}
	b.turn = b.turn.plus(n)
	return n
}

// result ends a turn: when its result reports the turn's usage, what the
// entries did not show (such as the output of stream-json messages) is
// added. It returns what is added.
func (b *usageBook) result(u *usageJSON) tokens {
	var n tokens
	if u != nil {
		r := u.tokens()
		n = tokens{max(0, r.in-b.turn.in), max(0, r.out-b.turn.out), max(0, r.cacheRead-b.turn.cacheRead), max(0, r.cacheWrite-b.turn.cacheWrite)}
	}
	b.turn = tokens{}
	return n
}

// resultCost is the cost of the turn a result ends. The Claude Code CLI
// reports total_cost_usd and modelUsage since its process started, and
// this turn's part in model_usage_since_last_result; other hosts report
// the turn's cost in total_cost_usd.
func (b *usageBook) turnCost(re rawEntry) float64 {
	b.resultCost = true
	switch {
	case re.ModelUsageSinceLastResult != nil:
		return sumCost(re.ModelUsageSinceLastResult)
	case re.TotalCostUSD != 0:
		return re.TotalCostUSD
	}
	return sumCost(re.ModelUsage)
}

// stateCost is what a cost-state line adds: its cost so far minus the last
// one's (a new CLI process, after a resume, counts from zero again). Once a
// result carried a cost, cost-state lines are not counted.
func (b *usageBook) costState(total float64) float64 {
	if b.resultCost {
		return 0
	}
	prev := b.stateCost
	b.stateCost = total
	if total >= prev {
		return total - prev
	}
	return total
}

// Digest is what a batch of new transcript entries says.
type Digest struct {
	// Entries are the agent's entries with text (where an answer can be).
	Entries []protocol.Entry
	Tools   store.ToolStats
	// Files are the files the tool calls wrote or edited.
	Files      []string
	LastAction string
	// InputTokens counts uncached input; cache reads and writes apart.
	InputTokens  int64
	OutputTokens int64
	CacheRead    int64
	CacheWrite   int64
	CostUSD      float64
	// PricedUSD is the cost of the tokens by the price table.
	PricedUSD float64
	// OpenPricedUSD is the part of PricedUSD after the last entry that
	// reported the cost (a result, a cost-state line); Settled: such an
	// entry came.
	OpenPricedUSD float64
	Settled       bool
	Assistant     bool // an assistant entry arrived
	Text          bool // an assistant entry with text arrived
	Result        bool // a result entry arrived (the turn ended)
	ResultError   string
	// Limit is the last limit an entry reported.
	Limit *limits.Limit
	// Retry is the last retry of a request to the model the CLI reported
	// (system/api_retry); Retrying says that nothing after it showed the
	// retry ended (an answer of the model, the turn's result).
	Retry    *limits.Retry
	Retrying bool
	// Answered: the model answered (an assistant entry that is not an API
	// error the CLI made up).
	Answered bool
	// Outage is the turn's end because the model could not be reached.
	Outage *limits.Outage
	// Activity: an entry of any kind arrived (a retry included).
	Activity bool
	// Made are the tool calls made, one line each ("Write docs/a.md",
	// "Bash go test ./..."), in order.
	Made []string
	// Cut: the turn was cut off (its process exited or Baton stopped)
	// before it ended by itself.
	Cut bool
	// Calls are the tool calls made, in order; Done are the ids of the
	// calls whose results came (Cursor.Running follows them).
	Calls []ToolCall
	Done  []string
}

// ToolCall is one tool call of the agent: its id, its tool and the gist of
// its input.
type ToolCall struct {
	ID, Name, Input string
}

// digest reads new entries; book remembers what earlier reads of the
// same session counted. Entry types that are not part of the conversation
// (Claude Code's queue-operation, attachment, api-request and the like) are
// skipped, except cost-state, which gives the cost when no result does.
func digest(raw []json.RawMessage, book *usageBook) Digest {
	var d Digest
	for _, r := range raw {
		r = session.CanonicalEntry(r)
		d.Activity = true
		if rt, ok := limits.DetectRetry(r); ok {
			d.Retry, d.Retrying = &rt, true
			continue
		}
		if o, ok := limits.DetectOutage(r); ok {
			d.Outage = &o
		}
		var e protocol.Entry
		if err := json.Unmarshal(r, &e); err != nil {
			continue
		}
		if hasText(e) {
			// Only what the agent said can hold an answer; tool calls and
			// results are counted below but not kept.
			d.Entries = append(d.Entries, e)
			d.Text = true
		}
		var re rawEntry
		_ = json.Unmarshal(r, &re)
		if l, ok := limits.Detect(r); ok {
			d.Limit = &l
		}
		switch e.Type {
		case "assistant":
			if e.IsSidechain {
				continue
			}
			// The model answered, or the CLI gave up and wrote the API's
			// error in its place: either way the retries are over.
			d.Assistant, d.Retrying = true, false
			d.Answered = d.Answered || !apiError(r)
			if re.Message != nil && re.Message.Usage != nil {
				n, usd := pricedAdd(book, re.Message.ID, re.Message.Model, *re.Message.Usage)
				d.addTokens(n)
				d.PricedUSD += usd
				d.OpenPricedUSD += usd
			}
			if e.Message == nil {
				continue
			}
			for _, b := range e.Message.Content {
				if b.Type != "tool_use" {
					continue
				}
				countTool(&d.Tools, b.Name)
				d.LastAction = session.ToolSummary(b.Name, b.Input, session.ToolCard)
				d.Made = append(d.Made, session.ToolSummary(b.Name, b.Input, session.ToolLine))
				if b.ID != "" {
					d.Calls = append(d.Calls, ToolCall{ID: b.ID, Name: b.Name, Input: toolInputGist(b.Name, b.Input)})
				}
				if f := writtenFile(b.Name, b.Input); f != "" {
					d.Files = append(d.Files, f)
				}
			}
		case "user":
			if e.IsSidechain || e.Message == nil {
				continue
			}
			for _, b := range e.Message.Content {
				if b.Type == "tool_result" && b.ToolUseID != "" {
					d.Done = append(d.Done, b.ToolUseID)
				}
			}
		case "result":
			d.Result, d.Retrying = true, false
			d.Cut = d.Cut || re.BatonCut
			d.Settled, d.OpenPricedUSD = true, 0
			d.CostUSD += book.turnCost(re)
			d.addTokens(book.result(re.Usage))
			if e.IsError {
				d.ResultError = e.Result
				if d.ResultError == "" {
					d.ResultError = e.Subtype
				}
			}
		case "cost-state":
			d.Settled, d.OpenPricedUSD = true, 0
			d.CostUSD += book.costState(re.TotalCostUSDState)
		}
	}
	return d
}

// apiError reports whether an assistant entry is an API error the CLI
// wrote in the model's place (is_api_error_message).
func apiError(raw json.RawMessage) bool {
	var e struct {
		IsAPIError  bool `json:"is_api_error_message"`
		IsAPIError2 bool `json:"isApiErrorMessage"`
	}
	_ = json.Unmarshal(raw, &e)
	return e.IsAPIError || e.IsAPIError2
}

// toolInputGist is the main argument of a tool call as a transcript line
// shows it ("go test ./...", "/p/api.go"), without the tool's name.
func toolInputGist(name string, input json.RawMessage) string {
	return strings.TrimPrefix(strings.TrimPrefix(session.ToolSummary(name, input, session.ToolLine), name), " ")
}

func (d *Digest) addTokens(n tokens) {
	d.InputTokens += n.in
	d.OutputTokens += n.out
	d.CacheRead += n.cacheRead
	d.CacheWrite += n.cacheWrite
}

func hasText(e protocol.Entry) bool {
	if e.Type != "assistant" || e.IsSidechain || e.Message == nil {
		return false
	}
	for _, c := range e.Message.Content {
		if c.Type == "text" && c.Text != "" {
			return true
		}
	}
	return false
}

// countTool files a tool_use under its kind.
func countTool(s *store.ToolStats, name string) {
	s.Total++
	switch toolKind(name) {
	case "reads":
		s.Reads++
	case "writes":
		s.Writes++
	case "edits":
		s.Edits++
	case "bash":
		s.Bash++
	case "search":
		s.Search++
	case "web":
		s.Web++
	case "task":
		s.Task++
	default:
		s.Other++
	}
}

func toolKind(name string) string {
	switch name {
	case "Read", "NotebookRead", "LS":
		return "reads"
	case "Write":
		return "writes"
	case "Edit", "MultiEdit", "NotebookEdit":
		return "edits"
	case "Bash", "BashOutput", "KillShell", "KillBash":
		return "bash"
	case "Grep", "Glob":
		return "search"
	case "WebFetch", "WebSearch":
		return "web"
	case "Task", "Agent":
		return "task"
	}
	if strings.HasPrefix(name, "mcp__") && strings.Contains(strings.ToLower(name), "search") {
		return "search"
	}
	return "other"
}

type toolInput struct {
	FilePath     string `json:"file_path"`
	NotebookPath string `json:"notebook_path"`
	Path         string `json:"path"`
	Command      string `json:"command"`
	Pattern      string `json:"pattern"`
	URL          string `json:"url"`
	Query        string `json:"query"`
	Description  string `json:"description"`
}

func writtenFile(name string, input json.RawMessage) string {
	switch name {
	case "Write", "Edit", "MultiEdit", "NotebookEdit":
	default:
		return ""
	}
	var in toolInput
	if json.Unmarshal(input, &in) != nil {
		return ""
	}
	if in.FilePath != "" {
		return in.FilePath
	}
	return in.NotebookPath
}

// AssistantText joins the text the agent said in entries (for keyword
// fallback).
func AssistantText(entries []protocol.Entry) string {
	var b strings.Builder
	for _, e := range entries {
		if e.Type != "assistant" || e.IsSidechain || e.Message == nil {
			continue
		}
		for _, c := range e.Message.Content {
			if c.Type == "text" {
				b.WriteString(c.Text)
				b.WriteString("\n")
			}
		}
	}
	return b.String()
}

// RelFiles makes paths relative to cwd where they are inside it, and
// removes duplicates, keeping order.
func RelFiles(cwd string, lists ...[]string) []string {
	seen := map[string]bool{}
	out := []string{}
	for _, l := range lists {
		for _, f := range l {
			if f == "" {
				continue
			}
			if filepath.IsAbs(f) && cwd != "" {
				if r, err := filepath.Rel(cwd, f); err == nil && !strings.HasPrefix(r, "..") {
					f = r
				}
			}
			f = filepath.ToSlash(filepath.Clean(f))
			if !seen[f] {
				seen[f] = true
				out = append(out, f)
			}
		}
	}
	return out
}

// AddTools adds the tool counts of d to s.
func AddTools(s *store.ToolStats, d store.ToolStats) {
	s.Total += d.Total
	s.Reads += d.Reads
	s.Writes += d.Writes
	s.Edits += d.Edits
	s.Bash += d.Bash
	s.Search += d.Search
	s.Web += d.Web
	s.Task += d.Task
	s.Other += d.Other
}
