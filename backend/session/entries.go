package session

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"unicode/utf8"
)

// The shapes of transcript entries that hosts are seen to write beyond
// Claude Code's own: a turn's result wrapped in the entry's message
// (entry.message.type == "result", as Claude Desktop's LocalSessions has
// been reported to deliver it), and camelCase fields (totalCostUsd, isError,
// numTurns, inputTokens…) beside the CLI's snake_case ones. The readers
// bring every entry to the CLI's shape first (CanonicalEntry), so one
// reader counts them all.

// camelResult maps the camelCase fields of a result to the CLI's names.
var camelResult = map[string]string{
	"totalCostUsd":              "total_cost_usd",
	"totalCostUSD":              "total_cost_usd",
	"isError":                   "is_error",
	"numTurns":                  "num_turns",
	"durationMs":                "duration_ms",
	"durationApiMs":             "duration_api_ms",
	"stopReason":                "stop_reason",
	"sessionId":                 "session_id",
	"modelUsageSinceLastResult": "model_usage_since_last_result",
	"permissionDenials":         "permission_denials",
}

// CanonicalEntry returns raw in the CLI's shape: a result wrapped in the
// entry's message is lifted to the top level (the wrapper's uuid and
// timestamp kept where the result has none), and a result's camelCase
// fields get their snake_case names (a snake_case field present wins).
// Every other entry is returned as it is.
func CanonicalEntry(raw json.RawMessage) json.RawMessage {
	if !bytes.Contains(raw, []byte(`"result"`)) {
		return raw
	}
	var top map[string]json.RawMessage
	if json.Unmarshal(raw, &top) != nil {
		return raw
	}
	res := top
	if typeOf(top) != "result" {
		msg, ok := top["message"]
		if !ok {
			return raw
		}
		var inner map[string]json.RawMessage
		if json.Unmarshal(msg, &inner) != nil || typeOf(inner) != "result" {
			return raw
		}
		res = inner
		for _, k := range []string{"uuid", "parentUuid", "timestamp", "sessionId", "session_id", "isSidechain"} {
			if v, ok := top[k]; ok {
				if _, has := res[k]; !has {
					res[k] = v
				}
			}
		}
	} else {
		camel := false
		for k := range res {
			if _, ok := camelResult[k]; ok {
				camel = true
				break
			}
		}
		if !camel {
			return raw
		}
	}
	for from, to := range camelResult {
		if v, ok := res[from]; ok {
			if _, has := res[to]; !has {
				res[to] = v
			}
			delete(res, from)
		}
	}
	out, err := json.Marshal(res)
	if err != nil {
		return raw
	}
	return out
}

func typeOf(m map[string]json.RawMessage) string {
	var t string
	_ = json.Unmarshal(m["type"], &t)
	return t
}

// ToolStyle is how ToolSummary writes a tool call.
type ToolStyle struct {
	keys     []string // the input fields tried, in order, for the argument
	baseName bool     // file paths shortened to their last element
	collapse bool     // runs of white space made one space
	max      int      // characters of the argument at most, ellipsis included
	ellipsis string
}

var (
	// ToolCard is a worker card's current action: what the agent does, in
	// a few words ("Edit api.go", "Bash Run the tests").
	ToolCard = ToolStyle{keys: []string{"file_path", "notebook_path", "description", "command", "pattern", "url", "query", "path"},
		baseName: true, max: 80, ellipsis: "..."}
	// ToolLine is a transcript line: the tool and its main argument as
	// given ("Read a/b.go", "Bash go test ./...").
	ToolLine = ToolStyle{keys: []string{"file_path", "path", "notebook_path", "command", "pattern", "url", "query", "description", "prompt"},
		collapse: true, max: 120, ellipsis: "…"}
)

// ToolSummary is the one-line gist of a tool call: the tool and its main
// argument (a path, a command, a pattern, a URL), written in style.
func ToolSummary(tool string, input json.RawMessage, style ToolStyle) string {
	var in map[string]any
	_ = json.Unmarshal(input, &in)
	for _, key := range style.keys {
		v, ok := in[key].(string)
		if !ok || v == "" {
			continue
		}
		if style.baseName && (key == "file_path" || key == "notebook_path") {
			v = filepath.Base(v)
		}
		if style.collapse {
			v = strings.Join(strings.Fields(v), " ")
		}
		if utf8.RuneCountInString(v) > style.max {
			v = firstRunes(v, style.max-utf8.RuneCountInString(style.ellipsis)) + style.ellipsis
		}
		return tool + " " + v
	}
	return tool
}

// firstRunes returns the first n runes of s.
func firstRunes(s string, n int) string {
	i := 0
	for j := range s {
		if i == n {
			return s[:j]
		}
		i++
	}
	return s
}
