package sessions

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/baton-app/baton/backend/claudecodetest"
	"github.com/baton-app/baton/backend/session"
)

func raws(lines ...string) []json.RawMessage {
	out := make([]json.RawMessage, len(lines))
	for i, l := range lines {
		out[i] = json.RawMessage(l)
	}
	return out
}

func TestItems(t *testing.T) {
	t.Parallel()
	entries := raws(
		`{"type":"user","uuid":"u1","message":{"role":"user","content":"Document the REST API"}}`,
		`{"type":"assistant","uuid":"a1","message":{"id":"m1","role":"assistant","content":[{"type":"thinking","thinking":"look first"},{"type":"tool_use","id":"t1","name":"Read","input":{"file_path":"server.go"}}]}}`,
		`{"type":"user","uuid":"u2","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":[{"type":"text","text":"package main"}],"is_error":false}]}}`,
		`not json`,
		`{"type":"assistant","uuid":"a2","message":{"role":"assistant","content":[{"type":"text","text":"  "},{"type":"text","text":"Done."}]}}`,
		`{"type":"result","uuid":"r1","subtype":"error_max_turns","is_error":true,"result":"stopped"}`,
	)
	items, skipped := Items(entries)
	if skipped != 1 {
		t.Fatalf("skipped = %d, want 1", skipped)
	}
	want := []struct {
		kind    Kind
		text    string
		summary string
		isError bool
	}{
		{KindText, "Document the REST API", "", false},
		{KindThinking, "look first", "", false},
		{KindToolUse, "{\n  \"file_path\": \"server.go\"\n}", "Read server.go", false},
		{KindToolResult, "package main", "", false},
		{KindText, "Done.", "", false},
		{KindResult, "stopped", "error_max_turns", true},
	}
	if len(items) != len(want) {
		t.Fatalf("got %d items, want %d: %+v", len(items), len(want), items)
	}
	for i, w := range want {
		it := items[i]
		if it.Kind != w.kind || it.Text != w.text || it.Summary != w.summary || it.IsError != w.isError {
			t.Errorf("item %d = %+v, want kind %s text %q summary %q error %v", i, it, w.kind, w.text, w.summary, w.isError)
		}
	}
}

func TestItemsClipHugeText(t *testing.T) {
	t.Parallel()
	huge := strings.Repeat("é", MaxText) // two bytes each
	line, _ := json.Marshal(map[string]any{"type": "assistant", "message": map[string]any{"role": "assistant", "content": huge}})
	items, _ := Items([]json.RawMessage{line})
	if len(items) != 1 || !items[0].Truncated {
		t.Fatalf("huge text not truncated: %d items", len(items))
	}
	if !strings.Contains(items[0].Text, "more bytes") || len(items[0].Text) > MaxText+40 {
		t.Fatalf("truncated text has length %d and no note", len(items[0].Text))
	}
	if !json.Valid([]byte(`"` + strings.Split(items[0].Text, "\n")[0] + `"`)) {
		t.Fatal("truncation cut a character in half")
	}
}

func TestToolSummary(t *testing.T) {
	t.Parallel()
	tests := []struct {
		tool, input, want string
	}{
		{"Read", `{"file_path":"a/b.go"}`, "Read a/b.go"},
		{"Bash", `{"command":"go test\n  ./..."}`, "Bash go test ./..."},
		{"Grep", `{"pattern":"TODO","path":"src"}`, "Grep src"},
		{"Task", `{}`, "Task"},
		{"Weird", `not json`, "Weird"},
		{"Bash", `{"command":"` + strings.Repeat("x", 300) + `"}`, "Bash " + strings.Repeat("x", 119) + "…"},
	}
	for _, tt := range tests {
		if got := ToolSummary(tt.tool, json.RawMessage(tt.input)); got != tt.want {
			t.Errorf("ToolSummary(%s, %s) = %q, want %q", tt.tool, tt.input, got, tt.want)
		}
	}
}

func TestPermissions(t *testing.T) {
	t.Parallel()
	got := Permissions([]session.PermissionRequest{
		{RequestID: "p1", SessionID: "local_1", ToolName: "Bash", Input: json.RawMessage(`{"command":"rm -rf build"}`)},
		{RequestID: "p2", SessionID: "local_2", ToolName: "AskUserQuestion", Input: json.RawMessage(`{"questions":[{"question":"Which database?"},{"question":"Keep v1?"}]}`)},
	})
	if len(got) != 2 {
		t.Fatalf("got %d permissions", len(got))
	}
	if got[0].Summary != "Bash rm -rf build" || got[0].Question != "" || !strings.Contains(got[0].Input, `"command": "rm -rf build"`) {
		t.Errorf("bash permission = %+v", got[0])
	}
	if got[1].Question != "Which database?\nKeep v1?" {
		t.Errorf("question = %q", got[1].Question)
	}
}

// Claude Code's transcript holds bookkeeping lines beside the conversation;
// an api-request-blob even has a message (a request's system prompt). None
// is shown, and none counts as unreadable.
func TestItemsSkipBookkeepingLines(t *testing.T) {
	t.Parallel()
	items, skipped := Items(raws(
		`{"type":"queue-operation","operation":"enqueue","content":"write hello","sessionId":"s"}`,
		`{"type":"attachment","attachment":{"type":"environment"},"uuid":"u0","rendered":[{"content":"<system-reminder>env</system-reminder>"}]}`,
		`{"type":"api-request-blob","hash":"h","message":{"role":"user","content":[{"type":"text","text":"<system-reminder>Attribution</system-reminder>"}]}}`,
		`{"type":"api-request","id":"r","params":{"model":"m"}}`,
		`{"type":"system","subtype":"permission_denied","tool_name":"Write","message":"Claude requested permissions to write"}`,
		`{"type":"user","uuid":"u1","message":{"role":"user","content":"write hello"}}`,
		`{"type":"assistant","uuid":"a1","message":{"id":"m1","role":"assistant","content":[{"type":"text","text":"Done."}]}}`,
		`{"type":"cost-state","totalCostUSD":0.002}`,
	))
	if skipped != 0 {
		t.Errorf("skipped = %d, want 0", skipped)
	}
	if len(items) != 2 || items[0].Text != "write hello" || items[1].Text != "Done." {
		t.Fatalf("items = %+v, want the user's and the agent's text only", items)
	}
}

// The Sessions view on what the real Claude Code CLI printed and wrote to
// disk (backend/claudecodetest/testdata/recordings): every line is readable,
// only what the user and the agent said and the turn's results are shown,
// and every tool call the agent made is there.
func TestItemsOfRealCLIRecordings(t *testing.T) {
	t.Parallel()
	for _, rec := range claudecodetest.Recordings(t) {
		for _, f := range []struct {
			name  string
			lines []json.RawMessage
		}{{"stream.jsonl", rec.StreamLines()}, {"transcript.jsonl", rec.TranscriptLines()}} {
			items, skipped := Items(f.lines)
			if skipped != 0 {
				t.Errorf("%s/%s: %d lines counted as unreadable", rec.Name, f.name, skipped)
			}
			tools := 0
			for _, it := range items {
				switch it.Role {
				case "user", "assistant", "result":
				default:
					t.Errorf("%s/%s: an item of a %q line is shown: %.80q", rec.Name, f.name, it.Role, it.Text)
				}
				if it.Kind == KindToolUse {
					tools++
				}
			}
			if want := strings.Count(string(bytesOf(f.lines)), `"type":"tool_use"`); tools != want {
				t.Errorf("%s/%s: %d tool calls shown, the lines hold %d", rec.Name, f.name, tools, want)
			}
		}
	}
}

func bytesOf(lines []json.RawMessage) []byte {
	var b []byte
	for _, l := range lines {
		var e struct {
			Type string `json:"type"`
		}
		if json.Unmarshal(l, &e) == nil && e.Type == "assistant" {
			b = append(b, l...)
		}
	}
	return b
}
