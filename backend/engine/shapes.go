package engine

import (
	"bytes"
	"encoding/json"
)

// The shapes of transcript entries that hosts are seen to write beyond
// Claude Code's own: a turn's result wrapped in the entry's message
// (entry.message.type == "result", as Claude Desktop's LocalSessions has
// been reported to deliver it), and camelCase fields (totalCostUsd, isError,
// numTurns, inputTokens…) beside the CLI's snake_case ones. The readers
// bring every entry to the CLI's shape first (canonicalEntry), so one
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

// canonicalEntry returns raw in the CLI's shape: a result wrapped in the
// entry's message is lifted to the top level (the wrapper's uuid and
// timestamp kept where the result has none), and a result's camelCase
// fields get their snake_case names (a snake_case field present wins).
// Every other entry is returned as it is.
func canonicalEntry(raw json.RawMessage) json.RawMessage {
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

// UnmarshalJSON reads a usage in the Messages API's snake_case or in
// camelCase (inputTokens, outputTokens, cacheReadInputTokens,
// cacheCreationInputTokens); a snake_case field present wins.
func (u *usageJSON) UnmarshalJSON(b []byte) error {
	var v struct {
		In         *int64 `json:"input_tokens"`
		Out        *int64 `json:"output_tokens"`
		CacheWrite *int64 `json:"cache_creation_input_tokens"`
		CacheRead  *int64 `json:"cache_read_input_tokens"`
		InC        *int64 `json:"inputTokens"`
		OutC       *int64 `json:"outputTokens"`
		CacheWrC   *int64 `json:"cacheCreationInputTokens"`
		CacheRdC   *int64 `json:"cacheReadInputTokens"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	pick := func(a, b *int64) int64 {
		switch {
		case a != nil:
			return *a
		case b != nil:
			return *b
		}
		return 0
	}
	*u = usageJSON{InputTokens: pick(v.In, v.InC), OutputTokens: pick(v.Out, v.OutC),
		CacheCreationInputTokens: pick(v.CacheWrite, v.CacheWrC), CacheReadInputTokens: pick(v.CacheRead, v.CacheRdC)}
	return nil
}

// CanonicalEntry is canonicalEntry for the other readers of transcripts
// (the Sessions view).
func CanonicalEntry(raw json.RawMessage) json.RawMessage { return canonicalEntry(raw) }
