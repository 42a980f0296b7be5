package simulator

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/baton-app/baton/backend/agent/agenttest"
	"github.com/baton-app/baton/backend/protocol"
)

func TestDelegationPlan(t *testing.T) {
	t.Parallel()
	_, base := newSim(t, Options{})
	dir := agenttest.Project(t)
	planning, _ := agenttest.SparcPrompts(t, dir)
	id := start(t, base, map[string]any{"cwd": dir, "message": planning})
	text := finalText(waitResult(t, base, id, 1))
	if strings.Contains(text, `"phase"`) {
		t.Errorf("the plan uses phase blocks:\n%s", text)
	}
	res := agenttest.Parse(t, text, protocol.PhaseTaskList)
	resp, ok := res.Last(protocol.PhaseTaskList)
	if !ok || resp.Dialect != protocol.DialectNewTask || !resp.Delimited || len(resp.Warnings) > 0 {
		t.Fatalf("plan = %+v (failure %+v):\n%s", resp, res.Failure, text)
	}
	tasks := resp.Data.(*protocol.TaskList).Tasks
	// One block per task: ".", api and store, then the integration task.
	if n := strings.Count(text, protocol.DefaultStart); len(tasks) != 4 || n != 4 {
		t.Fatalf("%d tasks in %d blocks: %+v", len(tasks), n, tasks)
	}
	var parts []string
	for _, task := range tasks[:3] {
		parts = append(parts, task.ID)
		if task.Mode == "" || task.Context == "" || len(task.AcceptanceCriteria) == 0 || len(task.Scope) == 0 || len(task.Dependencies) != 0 {
			t.Errorf("task %+v lacks new_task fields", task)
		}
	}
	last := tasks[3]
	if last.ID != "INT-001" || last.Mode != "integration" || strings.Join(last.Dependencies, ",") != strings.Join(parts, ",") {
		t.Errorf("integration task = %+v, want it after %v", last, parts)
	}
	if tasks[1].Scope[0] != "api/" {
		t.Errorf("second task's inputs = %v, want api/", tasks[1].Scope)
	}
}

func TestDelegationReports(t *testing.T) {
	t.Parallel()
	_, base := newSim(t, Options{})
	dir := agenttest.Project(t)
	_, worker := agenttest.SparcPrompts(t, dir)
	tests := []struct {
		scenario string
		check    func(t *testing.T, id, text string, entries []map[string]any)
	}{
		{"happy", func(t *testing.T, id, text string, entries []map[string]any) {
			c := agenttest.ValidCompletion(t, text, protocol.DialectAttemptCompletion)
			if c.TaskID != "CODE-002" || c.Status != "success" || !strings.Contains(c.Summary, "docs/api.md") || len(c.Artifacts) != 1 {
				t.Errorf("completion = %+v", c)
			}
			// The request asks for documentation: the page of the task's
			// scope, in the session's folder.
			if b, err := os.ReadFile(filepath.Join(dir, "docs", "api.md")); err != nil || !strings.Contains(string(b), "## api (Go)") {
				t.Errorf("the page the worker wrote: %v\n%s", err, b)
			}
		}},
		{"clarification", func(t *testing.T, id, text string, entries []map[string]any) {
			c := agenttest.ValidCompletion(t, text, protocol.DialectAttemptCompletion)
			if c.Status != "needs_input" || len(c.Questions) != 1 || !strings.Contains(c.Questions[0], "CODE-002") {
				t.Fatalf("first completion = %+v", c)
			}
			// The answer names no format: the report comes in the one the
			// task was asked in.
			call(t, "POST", base+"/api/send", map[string]string{"sessionId": id,
				"message": "The answer to your questions:\nMarkdown.\n\nContinue the task with this answer and report completion as before."})
			text = finalText(waitResult(t, base, id, 2))
			c = agenttest.ValidCompletion(t, text, protocol.DialectAttemptCompletion)
			if c.Status != "success" || c.TaskID != "CODE-002" {
				t.Errorf("completion after the answer = %+v", c)
			}
		}},
		{"worker-fails", func(t *testing.T, id, text string, entries []map[string]any) {
			c := agenttest.ValidCompletion(t, text, protocol.DialectAttemptCompletion)
			if c.Status != "failed" || !strings.Contains(c.Error, "simulated failure") {
				t.Errorf("completion = %+v", c)
			}
			if res := entries[len(entries)-1]; res["is_error"] != true {
				t.Errorf("result = %v", res)
			}
		}},
		{"conflict", func(t *testing.T, id, text string, entries []map[string]any) {
			c := agenttest.ValidCompletion(t, text, protocol.DialectAttemptCompletion)
			if c.Status != "conflict" || len(c.Issues) != 1 {
				t.Fatalf("completion = %+v", c)
			}
			is := c.Issues[0]
			if is.Type != "conflict" || !strings.HasPrefix(is.Description, "api/") || is.SuggestedResolution == "" {
				t.Errorf("issue = %+v, want a conflict over a file of api/ with a resolution", is)
			}
			if res := entries[len(entries)-1]; res["is_error"] == true {
				t.Errorf("a conflict report ended the turn in error: %v", res)
			}
		}},
	}
	for i, tt := range tests {
		t.Run(tt.scenario, func(t *testing.T) {
			t.Parallel()
			id := start(t, base, map[string]any{"cwd": dir, "sessionId": fmt.Sprintf("local___orch_r%d_worker_CODE-002", i),
				"message": "[[sim:scenario=" + tt.scenario + "]] " + worker})
			entries := waitResult(t, base, id, 1)
			text := finalText(entries)
			if strings.Contains(text, `"phase"`) {
				t.Errorf("the report uses a phase block:\n%s", text)
			}
			for _, e := range entries {
				if e["type"] == "assistant" && strings.Contains(strings.Join(assistantTexts(e), ""), `"phase"`) {
					t.Errorf("a worker message of the delegation dialect holds a phase block: %v", e)
				}
			}
			tt.check(t, id, text, entries)
		})
	}
}

func assistantTexts(e map[string]any) []string {
	var out []string
	msg, _ := e["message"].(map[string]any)
	blocks, _ := msg["content"].([]any)
	for _, b := range blocks {
		if m, _ := b.(map[string]any); m["type"] == "text" {
			s, _ := m["text"].(string)
			out = append(out, s)
		}
	}
	return out
}

// TestConflictOrchestratorDialect: the conflict scenario in the phase
// block format is a completion of status conflict with its issue.
func TestConflictOrchestratorDialect(t *testing.T) {
	t.Parallel()
	_, base := newSim(t, Options{Scenario: "conflict"})
	dir := agenttest.Project(t)
	id := start(t, base, map[string]any{"cwd": dir, "message": `Do task_004 on store/. Answer {"phase": "completion", "data": {"task_id": "task_004"}}`})
	c := agenttest.ValidCompletion(t, finalText(waitResult(t, base, id, 1)), protocol.DialectOrchestrator)
	if c.TaskID != "task_004" || c.Status != "conflict" || len(c.Issues) != 1 ||
		!strings.HasPrefix(c.Issues[0].Description, "store/db.go: ") || c.Issues[0].SuggestedResolution == "" {
		t.Errorf("completion = %+v", c)
	}
}

// TestDelegationBrokenAnswers: the bad-answer scenarios break the first
// delegation answer the same way as a phase block, and the stricter
// re-prompt the engine sends (which shows a phase block) gets a valid one.
func TestDelegationBrokenAnswers(t *testing.T) {
	t.Parallel()
	_, base := newSim(t, Options{})
	dir := agenttest.Project(t)
	planning, worker := agenttest.SparcPrompts(t, dir)
	p := agenttest.Parser(t)
	prompts := map[protocol.Phase]string{protocol.PhaseTaskList: planning, protocol.PhaseCompletion: worker}
	tests := []struct {
		scenario string
		// broken reports whether the first answer is broken as the
		// scenario says.
		broken func(res protocol.Result, text string) bool
	}{
		{"malformed-json", func(res protocol.Result, text string) bool {
			for _, r := range res.Responses {
				if r.Repaired() || r.Status == protocol.StatusInvalidJSON {
					return true
				}
			}
			return false
		}},
		{"no-delimiters", func(res protocol.Result, text string) bool {
			return !strings.Contains(text, protocol.DefaultStart) && strings.Contains(text, "```json")
		}},
		{"missing-fields", func(res protocol.Result, text string) bool {
			return res.Failure != nil && res.Failure.Kind == protocol.FailureInvalidData
		}},
	}
	for _, tt := range tests {
		for phase, prompt := range prompts {
			t.Run(tt.scenario+"/"+string(phase), func(t *testing.T) {
				t.Parallel()
				id := start(t, base, map[string]any{"cwd": dir, "message": "[[sim:scenario=" + tt.scenario + "]] " + prompt})
				text := finalText(waitResult(t, base, id, 1))
				res := p.ParseText(text, protocol.Options{Phase: phase})
				if !tt.broken(res, text) {
					t.Fatalf("first answer is not broken as %s says:\n%s", tt.scenario, text)
				}
				f := res.Failure
				if f == nil {
					t.Logf("Baton reads the first answer as it is")
					return // repaired, or found without delimiters
				}
				call(t, "POST", base+"/api/send", map[string]string{"sessionId": id, "message": p.BuildReprompt(*f, phase)})
				text = finalText(waitResult(t, base, id, 2))
				if _, ok := p.ParseText(text, protocol.Options{Phase: phase}).Last(phase); !ok {
					t.Fatalf("the answer to the re-prompt is not a valid %s:\n%s", phase, text)
				}
			})
		}
	}
}
