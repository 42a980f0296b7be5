package agent

import (
	"log/slog"
	"strings"
	"testing"

	"github.com/baton-app/baton/backend/agent/agenttest"
	"github.com/baton-app/baton/backend/template"
)

func TestDetect(t *testing.T) {
	t.Parallel()
	tests := []struct{ prompt, phase, dialect string }{
		{`Explore and answer {"phase": "analysis", "data": {}}`, "analysis", dialectOrchestrator},
		{`Make the plan: {"phase":"task_list","data":{"tasks":[]}}`, "task_list", dialectOrchestrator},
		{`Do task_003. Report {"phase": "progress"} while working and {"phase": "completion"} at the end.`, "completion", dialectOrchestrator},
		{`Merge them: {"phase": "aggregation"} — earlier phases were "phase": "analysis"`, "aggregation", dialectOrchestrator},
		{`Delegate each task with one new_task object: {"taskId": "...", "objective": "..."}`, "task_list", dialectDelegation},
		// A worker's prompt quotes its own new_task too: the report wins.
		{`Your task (a new_task): {"taskId": "A-1", "objective": "x"}. End with an attempt_completion: {"taskId": "A-1", "result": "..."}`, "completion", dialectDelegation},
		// A phase block example wins over the dialect's words.
		{`Merge the attempt_completion reports {"result": "success"}; answer {"phase": "aggregation"}`, "aggregation", dialectOrchestrator},
		// Words alone say no dialect.
		{`Without new_task objects or attempt_completion reports, write the task list.`, "task_list", ""},
		{`The answer to your questions: yes. Continue and report completion as before.`, "completion", ""},
		{`Verify everything and report.`, "verification", ""},
		{`Please write the task list now.`, "task_list", ""},
		{`Analyze the repository.`, "analysis", ""},
		{`hello`, "", ""},
	}
	for _, tt := range tests {
		if phase, dialect := Detect(tt.prompt); phase != tt.phase || dialect != tt.dialect {
			t.Errorf("Detect(%q) = %q, %q, want %q, %q", tt.prompt, phase, dialect, tt.phase, tt.dialect)
		}
	}
}

func TestDetectSparcPrompts(t *testing.T) {
	t.Parallel()
	planning, worker := agenttest.SparcPrompts(t, "/tmp/project")
	if phase, dialect := Detect(planning); phase != "task_list" || dialect != dialectDelegation {
		t.Errorf("sparc planning prompt read as %q, %q", phase, dialect)
	}
	if phase, dialect := Detect(worker); phase != "completion" || dialect != dialectDelegation {
		t.Errorf("sparc worker prompt read as %q, %q", phase, dialect)
	}
}

// The plan's verbs follow the user's request quoted in Baton's prompt, not
// the template's own words around it.
func TestVerbFollowsTheUserRequest(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ prompt, want string }{
		{"## The request\nDocument the inventory service\n\n## The project\nRun the tests when you can.", "Document"},
		{"## The request\nAdd tests to every package\n\n## The project\nWrite documentation.", "Add tests for"},
		{"Your task: x\n\nThe user's request, for context only (do your task, not the whole request):\nReview the API\n\n## How to work\nDocument and test.", "Review"},
		{"please document this", "Document"},
		{"Clean it up", "Work on"},
	} {
		m := NewMind(Turn{Initial: tt.prompt})
		if got := m.verb(); got != tt.want {
			t.Errorf("verb for %q = %q, want %q", tt.prompt, got, tt.want)
		}
	}
}

// Every system template's prompts, rendered as the engine sends them, are
// read as the phase they ask for: the agent answers the first prompt of
// each phase without a re-prompt.
func TestDetectEverySystemTemplatePrompt(t *testing.T) {
	t.Parallel()
	mgr, err := template.New(t.TempDir(), template.Options{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	infos, err := mgr.List()
	if err != nil {
		t.Fatal(err)
	}
	values := map[string]any{
		template.VarCWD: "/tmp/project", template.VarUserRequest: "Document this project",
		template.VarTaskID: "task_002", template.VarTaskTitle: "Work on api", template.VarTaskDescription: "Work on api.",
		template.VarTaskScope: "api/", template.VarTaskJSON: `{"taskId":"task_002","delegatedToMode":"code","objective":"Work on api."}`,
	}
	want := map[template.Phase]string{
		template.PhaseAnalysis: "analysis", template.PhaseTaskPlanning: "task_list", template.PhaseWorkerExecution: "completion",
		template.PhaseAggregation: "aggregation", template.PhaseVerification: "verification", template.PhaseReview: "review",
	}
	for _, info := range infos {
		tmpl, err := mgr.Get(info.ID)
		if err != nil {
			t.Fatal(err)
		}
		for phase, wantPhase := range want {
			p, err := tmpl.Render(phase, values)
			if err != nil || strings.TrimSpace(p.User) == "" {
				continue // the template has no prompt for this phase
			}
			if got, _ := Detect(p.System + "\n\n" + p.User); got != wantPhase {
				t.Errorf("%s: the %s prompt is read as %q, want %q", info.ID, phase, got, wantPhase)
			}
		}
	}
}
