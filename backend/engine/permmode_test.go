package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/baton-app/baton/backend/permrules"
	"github.com/baton-app/baton/backend/session"
	"github.com/baton-app/baton/backend/template"
)

// toolDone adds the result of tool call id (an error when failed).
func (s *fakeSession) toolDone(id string, failed bool) {
	s.add(map[string]any{"type": "user", "uuid": fmt.Sprintf("u%d", len(s.entries)),
		"message": map[string]any{"role": "user", "content": []any{
			map[string]any{"type": "tool_result", "tool_use_id": id, "content": "done", "is_error": failed}}}})
}

// lastTool is the id of the tool call tool added last.
func (s *fakeSession) lastTool() string { return fmt.Sprintf("t%d", s.n) }

// The calls a worker's session decided without a prompt are in the
// permission log as the permission mode's: a Write acceptEdits let run, a
// call that failed (it ran), an Edit the turn's result lists as denied; the
// Bash call a rule answered is logged once, by the rule.
func TestCallsWithoutAPromptLoggedAsTheMode(t *testing.T) {
	t.Parallel()
	tasks := plan(planned{"a", 5, nil})
	var denied, written string
	h := newHarness(t, testTemplate(func(tp *template.Template) {
		tp.Config.PermissionMode = session.ModeAcceptEdits
		tp.Config.Permissions = &permrules.Lists{Allow: []string{"Bash(go test:*)"}}
	}), scripted(tasks, func(h *fakeHost, s *fakeSession, task string, _ bool) bool {
		written = s.opts.Cwd + "/docs/a.md"
		s.tool("Write", map[string]any{"file_path": written, "content": "x"})
		s.toolDone(s.lastTool(), false)
		s.tool("Bash", map[string]any{"command": "go test ./...", "description": "Run the tests"})
		s.pending = []session.PermissionRequest{{RequestID: "req1", ToolName: "Bash", Input: []byte(`{"command":"go test ./...","description":"Run the tests"}`)}}
		return true
	}), true)
	h.host.onRespond = func(s *fakeSession) {
		s.toolDone(s.lastTool(), false)
		s.tool("Edit", map[string]any{"file_path": "/etc/hosts", "old_string": "a", "new_string": "b"})
		denied = s.lastTool()
		s.toolDone(denied, true)
		s.tool("Bash", map[string]any{"command": "go vet ./..."})
		s.toolDone(s.lastTool(), true)
		s.say(block("completion", map[string]any{"task_id": "a", "status": "success"}))
		s.endTurn(h.host)
		// The CLI's result lists the calls denied in the turn.
		var res map[string]any
		_ = json.Unmarshal(s.entries[len(s.entries)-1], &res)
		res["permission_denials"] = []any{map[string]any{"tool_name": "Edit", "tool_use_id": denied, "tool_input": map[string]any{}}}
		s.entries[len(s.entries)-1], _ = json.Marshal(res)
	}
	id := h.create()
	ctx := context.Background()
	if err := h.eng.Start(ctx, id); err != nil {
		t.Fatal(err)
	}
	if run := h.wait(id); run.Status != "completed" {
		t.Errorf("run = %s", run.Status)
	}
	log, err := h.st.PermissionLog(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, d := range log {
		if d.TaskID != "a" {
			continue // the main session's reads
		}
		k := d.Tool + " " + d.Summary
		if _, twice := got[k]; twice {
			t.Errorf("%s is logged twice: %+v", k, log)
		}
		got[k] = d.Decision + " " + d.DecidedBy + " " + d.Rule + " " + d.Source
	}
	want := map[string]string{
		"Write " + written:   "allow mode  acceptEdits",
		"Bash go test ./...": "allow rule Bash(go test:*) template",
		"Edit /etc/hosts":    "deny mode  acceptEdits",
		"Bash go vet ./...":  "allow mode  acceptEdits",
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: %q, want %q (log %+v)", k, got[k], v, log)
		}
	}
	if len(got) != len(want) {
		t.Errorf("the worker's log = %v, want %v", got, want)
	}
}
