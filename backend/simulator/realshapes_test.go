package simulator

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/baton-app/baton/backend/agent/agenttest"
	"github.com/baton-app/baton/backend/claudecodetest"
)

// schema is what the real Claude Code CLI's lines hold at each field path
// (the JSON kinds seen there), learned from the recordings. Content blocks
// are learned by block type, whatever line holds them.
type schema map[string]map[string]bool

func kindOf(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "string"
	case float64:
		return "number"
	case bool:
		return "bool"
	case []any:
		return "array"
	}
	return "object"
}

// learn records every field path of v under prefix.
func (s schema) learn(prefix string, v any) {
	if s[prefix] == nil {
		s[prefix] = map[string]bool{}
	}
	s[prefix][kindOf(v)] = true
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			s.learn(prefix+"."+k, e)
		}
	case []any:
		for _, e := range x {
			s.learn(elemPath(prefix, e), e)
		}
	}
}

// elemPath names an array element: content blocks by their type (a
// tool_use block wherever it is), other elements as [].
func elemPath(prefix string, e any) string {
	if strings.HasSuffix(prefix, ".content") {
		if m, ok := e.(map[string]any); ok {
			if typ, ok := m["type"].(string); ok {
				return "block:" + typ
			}
		}
	}
	return prefix + "[]"
}

// check reports every field path of v the real lines never have, or have
// with another kind (null is accepted where the field exists). A tool's
// input is the tool's own: only its being an object is checked.
func (s schema) check(prefix string, v any, problems *[]string) {
	kinds, ok := s[prefix]
	if !ok {
		*problems = append(*problems, fmt.Sprintf("%s: no real line has this field", prefix))
		return
	}
	if k := kindOf(v); k != "null" && !kinds[k] {
		*problems = append(*problems, fmt.Sprintf("%s: %s here, the real lines have %v", prefix, k, keys(kinds)))
		return
	}
	if prefix == "block:tool_use.input" {
		return
	}
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if prefix == "modelUsage" || prefix == "model_usage_since_last_result" {
				// Keyed by model name: compare with any model's.
				s.check(prefix+".*", e, problems)
				continue
			}
			s.check(prefix+"."+k, e, problems)
		}
	case []any:
		for _, e := range x {
			s.check(elemPath(prefix, e), e, problems)
		}
	}
}

func keys(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// realSchema learns the real lines: user and assistant lines as the CLI's
// transcript on disk has them, result lines as its stream-json result
// events. Lines are filed under their type; model names under ".*".
func realSchema(t *testing.T) schema {
	t.Helper()
	s := schema{}
	for _, rec := range claudecodetest.Recordings(t) {
		for _, f := range []struct {
			lines []json.RawMessage
			types []string
		}{{rec.TranscriptLines(), []string{"user", "assistant"}}, {rec.StreamLines(), []string{"result"}}} {
			for _, l := range f.lines {
				var e map[string]any
				if err := json.Unmarshal(l, &e); err != nil {
					t.Fatal(err)
				}
				typ, _ := e["type"].(string)
				if !slices.Contains(f.types, typ) {
					continue
				}
				for _, k := range []string{"modelUsage", "model_usage_since_last_result"} {
					if m, ok := e[k].(map[string]any); ok {
						for _, u := range m {
							s.learn(k+".*", u)
						}
						delete(e, k)
						s.learn(k, map[string]any{})
					}
				}
				s.learn(typ, e)
			}
		}
	}
	if len(s["result"]) == 0 || len(s["assistant.message.usage"]) == 0 {
		t.Fatal("the recordings hold no result or no assistant usage")
	}
	return s
}

// The simulator page's transcript speaks Claude Code's real shapes: every
// field of its user, assistant and result entries is a field the real CLI's
// lines have (recorded from it in backend/claudecodetest), with the same
// kind of value; and the fields Baton reads are all there.
func TestSimulatorEntriesHaveTheRealShapes(t *testing.T) {
	t.Parallel()
	real := realSchema(t)
	_, base := newSim(t, Options{})
	dir := agenttest.Project(t)
	var entries []map[string]any
	for _, msg := range []string{
		`Do task_001 on store/. Answer {"phase": "completion", "data": {"task_id": "task_001"}}`,
		`Do task_002 on api/. Answer {"phase": "completion", "data": {"task_id": "task_002"}} [[sim:scenario=worker-fails]]`,
	} {
		id := start(t, base, map[string]any{"cwd": dir, "message": msg})
		entries = append(entries, waitResult(t, base, id, 1)...)
	}
	kinds := map[string]int{}
	for _, e := range entries {
		typ, _ := e["type"].(string)
		if typ != "user" && typ != "assistant" && typ != "result" {
			t.Errorf("an entry of type %q: %v", typ, e)
			continue
		}
		kinds[typ]++
		check := map[string]any{}
		for k, v := range e {
			check[k] = v
		}
		for _, k := range []string{"modelUsage", "model_usage_since_last_result"} {
			if m, ok := check[k].(map[string]any); ok {
				delete(check, k)
				var problems []string
				for _, u := range m {
					real.check(k+".*", u, &problems)
				}
				for _, p := range problems {
					t.Errorf("%s entry: %s", typ, p)
				}
			}
		}
		var problems []string
		real.check(typ, check, &problems)
		for _, p := range problems {
			t.Errorf("%s entry: %s", typ, p)
		}
		// What Baton reads must be there.
		want := map[string][]string{
			"user":      {"uuid", "timestamp", "sessionId", "message"},
			"assistant": {"uuid", "parentUuid", "timestamp", "sessionId", "message"},
			"result":    {"uuid", "session_id", "subtype", "is_error", "result", "total_cost_usd", "usage", "modelUsage", "model_usage_since_last_result"},
		}[typ]
		for _, k := range want {
			if _, ok := e[k]; !ok {
				t.Errorf("%s entry without %s: %v", typ, k, e)
			}
		}
		if typ == "assistant" {
			msg, _ := e["message"].(map[string]any)
			for _, k := range []string{"id", "type", "role", "model", "content", "usage", "stop_reason"} {
				if _, ok := msg[k]; !ok {
					t.Errorf("assistant message without %s: %v", k, msg)
				}
			}
		}
	}
	if kinds["user"] < 2 || kinds["assistant"] < 2 || kinds["result"] != 2 {
		t.Fatalf("entries by type: %v", kinds)
	}
}

// The check fails on a field the real lines lack (so the test above can
// fail).
func TestRealShapeCheckCatchesAnInventedField(t *testing.T) {
	t.Parallel()
	real := realSchema(t)
	var problems []string
	real.check("result", map[string]any{"type": "result", "total_cost_usd": 0.1, "costUSD": 0.1}, &problems)
	real.check("assistant", map[string]any{"type": "assistant", "message": map[string]any{"usage": map[string]any{"input_tokens": "12"}}}, &problems)
	if len(problems) != 2 || !strings.Contains(problems[0]+problems[1], "result.costUSD") || !strings.Contains(problems[0]+problems[1], "input_tokens: string") {
		t.Fatalf("problems = %q", problems)
	}
}
