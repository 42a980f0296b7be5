package prompts

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/baton-app/baton/backend/protocol"
	"github.com/baton-app/baton/backend/store"
)

// TestNewTaskJSON: a worker of the delegation dialect is sent its task as
// the new_task the planner wrote, with the user's edits over it, and Baton's
// own parser reads it back as that task.
func TestNewTaskJSON(t *testing.T) {
	t.Parallel()
	p, err := protocol.NewParser(protocol.Delimiters{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	planned := `{"taskId": "CODE-002", "parentTaskId": "FEAT-1", "delegatedToMode": "code",
  "objective": "Add the reset endpoint.", "context": "Go service in internal/auth.",
  "inputs": [{"type": "code", "path": "internal/auth", "version": "a1b2c3", "description": "login code"}],
  "expectedOutputs": [{"type": "code", "path": "internal/auth/reset.go", "description": "the endpoint"}],
  "constraintsAndRules": ["No new dependencies"], "acceptanceCriteria": ["go test ./internal/auth passes"],
  "priority": "high", "dependencies": ["SPEC-001"], "deadlineHint": "20 minutes"}`
	resp, ok := p.ParseText(planned, protocol.Options{}).Last(protocol.PhaseTaskList)
	if !ok {
		t.Fatal("the planned new_task does not parse")
	}
	pt := resp.Data.(*protocol.TaskList).Tasks[0]
	def, err := json.Marshal(pt)
	if err != nil {
		t.Fatal(err)
	}
	// As the engine stores it (engine.tasksFromPlan).
	task := store.Task{RunID: "run1", ID: pt.ID, Title: pt.Title, Description: pt.Description, Scope: pt.Scope,
		Priority: *pt.Priority, Dependencies: pt.Dependencies, Complexity: pt.Complexity, Definition: def}
	stored := task
	// The user edits the task before confirming.
	task.Description = "Add the reset endpoint, with rate limiting."
	task.Priority = 2
	task.Scope = append(task.Scope, "internal/mail")

	sent := newTaskJSON(&task)
	if !strings.HasPrefix(sent, `{"taskId":"CODE-002","parentTaskId":"FEAT-1","delegatedToMode":"code",`) {
		t.Errorf("new_task fields out of the seed's order: %s", sent)
	}
	back, ok := p.ParseText(sent, protocol.Options{}).Last(protocol.PhaseTaskList)
	if !ok || back.Dialect != protocol.DialectNewTask || len(back.Warnings) > 0 {
		t.Fatalf("Baton does not read back %s: %+v", sent, back)
	}
	got := back.Data.(*protocol.TaskList).Tasks[0]
	want := []struct{ name, got, want string }{
		{"objective", got.Description, task.Description},
		{"mode", got.Mode, "code"},
		{"parent", got.ParentID, "FEAT-1"},
		{"context", got.Context, "Go service in internal/auth."},
		{"inputs", strings.Join(got.Scope, ","), "internal/auth,internal/mail"},
		{"expected outputs", strings.Join(got.ExpectedOutputs, ","), "internal/auth/reset.go"},
		{"constraints", strings.Join(got.Constraints, ","), "No new dependencies"},
		{"criteria", strings.Join(got.AcceptanceCriteria, ","), "go test ./internal/auth passes"},
		{"dependencies", strings.Join(got.Dependencies, ","), "SPEC-001"},
		{"deadline", got.Deadline, "20 minutes"},
	}
	for _, w := range want {
		if w.got != w.want {
			t.Errorf("%s = %q, want %q", w.name, w.got, w.want)
		}
	}
	// Seed 003: an input keeps its type, version and description, an
	// expected output its description; an input the user added is a path.
	if len(got.Inputs) != 2 || got.Inputs[0] != (protocol.Artifact{Type: "code", Path: "internal/auth", Version: "a1b2c3",
		Description: "login code"}) || got.Inputs[1] != (protocol.Artifact{Path: "internal/mail"}) {
		t.Errorf("inputs = %+v, want the planner's whole input and the user's path", got.Inputs)
	}
	if len(got.OutputArtifacts) != 1 || got.OutputArtifacts[0].Description != "the endpoint" ||
		got.OutputArtifacts[0].Type != "code" {
		t.Errorf("expected outputs = %+v, want the planner's description", got.OutputArtifacts)
	}
	if got.Priority == nil || *got.Priority != 2 {
		t.Errorf("priority = %v, want low (2)", got.Priority)
	}

	// A task without a planner's definition (a remediation task) still
	// becomes a valid new_task.
	bare := stored
	bare.Definition, bare.Dependencies, bare.Scope = nil, nil, nil
	back, ok = p.ParseText(newTaskJSON(&bare), protocol.Options{}).Last(protocol.PhaseTaskList)
	if !ok || back.Data.(*protocol.TaskList).Tasks[0].ID != "CODE-002" {
		t.Errorf("a task without definition: %s: %+v", newTaskJSON(&bare), back)
	}
}
