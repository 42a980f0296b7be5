package template

import (
	"encoding/json"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/baton-app/baton/templates"
)

var systemIDs = []string{"_default", "documentation", "code-review", "test-coverage", "refactor", "bug-hunt", "exploration", "sparc", "team-review"}

func TestSystemTemplatesValidateAndResolve(t *testing.T) {
	t.Parallel()
	m, _ := newManager(t, false)
	if got := templates.SystemIDs(); !sameSet(got, systemIDs) {
		t.Fatalf("system templates = %v, want %v", got, systemIDs)
	}
	for _, id := range systemIDs {
		t.Run(id, func(t *testing.T) {
			t.Parallel()
			raw, err := m.Raw(id)
			if err != nil {
				t.Fatal(err)
			}
			if problems := m.Validate(raw); problems != nil {
				t.Fatalf("Validate: %v", problems)
			}
			r, err := m.Resolve(id)
			if err != nil {
				t.Fatalf("Resolve: %v", err)
			}
			if r.Chain[len(r.Chain)-1] != "_default" {
				t.Errorf("chain %v does not end at _default", r.Chain)
			}
			if id != "_default" && len(raw) >= len(mustRaw(t, m, "_default")) {
				t.Errorf("%s is as large as _default: a child should inherit most of it", id)
			}
			checkPrompts(t, r.Template)
		})
	}
}

var leftover = regexp.MustCompile(`\{[A-Z][A-Z0-9_]*\}`)

// checkPrompts proves that every prompt asks for its block, carries the
// placeholders the engine fills, and leaves no placeholder unfilled once the
// engine's values and the variables' defaults are in.
func checkPrompts(t *testing.T, tpl Template) {
	t.Helper()
	need := map[Phase][]string{
		PhaseAnalysis:        {"{USER_REQUEST}", "{CWD}"},
		PhaseTaskPlanning:    {"{MAX_TASKS}"},
		PhaseWorkerExecution: {"{TASK_ID}", "{TASK_TITLE}", "{TASK_SCOPE}", "{USER_REQUEST}", "{CWD}"},
		PhaseReview:          {"{TASK_ID}", "{COMPLETION_REPORT}"},
		PhaseAggregation:     {"{WORKER_OUTPUTS}"},
		PhaseVerification:    {"{CWD}"},
	}
	answer := map[Phase]string{
		PhaseAnalysis:        `"phase": "analysis"`,
		PhaseTaskPlanning:    `"phase": "task_list"`,
		PhaseWorkerExecution: `"phase": "completion"`,
		PhaseReview:          `"phase": "review"`,
		PhaseAggregation:     `"phase": "aggregation"`,
		PhaseVerification:    `"phase": "verification"`,
	}
	delegation := tpl.Prompts.ResponseFormat.Dialect == "delegation"
	if delegation {
		answer[PhaseTaskPlanning] = `"delegatedToMode"`
		answer[PhaseWorkerExecution] = `"result": "clarification_needed"`
		need[PhaseWorkerExecution] = append(need[PhaseWorkerExecution], "{TASK_JSON}")
	} else {
		need[PhaseWorkerExecution] = append(need[PhaseWorkerExecution], "{TASK_DESCRIPTION}")
	}
	if tpl.Config.Transport == "mailbox" {
		answer[PhaseWorkerExecution] = `"type": "completion_report"`
		need[PhaseWorkerExecution] = append(need[PhaseWorkerExecution], "to-team-lead.json", "buildResult")
	}
	given := map[string]any{}
	for name, v := range tpl.Variables {
		if v.Required && (v.Default == nil || v.Default == "") {
			given[name] = "sample " + name
		}
	}
	values, err := tpl.Values(given)
	if err != nil {
		t.Fatalf("Values with defaults: %v", err)
	}
	for _, v := range []string{VarUserRequest, VarCWD, VarTaskID, VarTaskTitle, VarTaskDescription, VarTaskScope, VarTaskJSON, VarWorkerOutputs, VarCompletionReport} {
		values[v] = "value of " + v
	}
	for phase, want := range need {
		p, _ := tpl.Prompts.Prompt(phase)
		text := p.System + "\n" + p.User
		for _, w := range append(want, "{START_DELIMITER}", "{END_DELIMITER}", answer[phase]) {
			if !strings.Contains(text, w) {
				t.Errorf("%s prompt lacks %s", phase, w)
			}
		}
		r, err := tpl.Render(phase, values)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range []string{r.System, r.User} {
			if left := leftover.FindAllString(s, -1); left != nil {
				t.Errorf("%s prompt keeps unfilled placeholders %v", phase, left)
			}
		}
		if !strings.Contains(r.User, tpl.Prompts.ResponseFormat.StartDelimiter) {
			t.Errorf("rendered %s prompt lacks the start delimiter", phase)
		}
		// Every example between the delimiters is valid JSON.
		for _, ex := range examples(r.User, tpl.Prompts.ResponseFormat) {
			var v any
			outline := strings.Contains(ex, `"..."`) || strings.Contains(ex, "{ ... }") || strings.Contains(ex, "[ ... ]") || strings.Contains(ex, ", ...}")
			if err := json.Unmarshal([]byte(ex), &v); err != nil && !outline {
				t.Errorf("%s prompt has an example block that is not valid JSON (%v):\n%s", phase, err, ex)
			}
		}
	}
}

// examples returns the text between each pair of delimiter lines.
func examples(text string, f ResponseFormat) []string {
	var out []string
	for {
		i := strings.Index(text, f.StartDelimiter+"\n")
		if i < 0 {
			return out
		}
		text = text[i+len(f.StartDelimiter)+1:]
		j := strings.Index(text, "\n"+f.EndDelimiter)
		if j < 0 {
			return out
		}
		out = append(out, text[:j])
		text = text[j:]
	}
}

func TestSystemTemplateSettings(t *testing.T) {
	t.Parallel()
	m, _ := newManager(t, false)
	tests := []struct {
		id    string
		check func(Template) bool
		what  string
	}{
		{"exploration", func(t Template) bool { return t.Config.PermissionMode == "plan" }, "runs in plan mode"},
		{"exploration", func(t Template) bool {
			return strings.Contains(t.Prompts.WorkerExecution.System, "Do not create, edit")
		}, "forbids edits to workers"},
		{"code-review", func(t Template) bool { return t.Config.PermissionMode == "plan" }, "runs in plan mode"},
		{"sparc", func(t Template) bool { return t.Prompts.ResponseFormat.Dialect == "delegation" }, "uses the delegation dialect"},
		{"team-review", func(t Template) bool { return t.Config.Transport == "mailbox" }, "uses the mailbox"},
		{"team-review", func(t Template) bool {
			return t.Phases.Review.Enabled && t.Phases.Review.Reviewer == "orchestrator" && t.Phases.Review.RequireBuildSuccess
		}, "gates on review with a build"},
		{"test-coverage", func(t Template) bool { return t.Phases.Verification.Enabled }, "verifies"},
		{"_default", func(t Template) bool {
			return t.Prompts.ResponseFormat.StartDelimiter == "<<<ORCHESTRATOR_RESPONSE>>>" && t.Prompts.ResponseFormat.EndDelimiter == "<<<END_ORCHESTRATOR_RESPONSE>>>"
		}, "uses the seed delimiters"},
	}
	for _, tc := range tests {
		t.Run(tc.id+" "+tc.what, func(t *testing.T) {
			t.Parallel()
			tpl, err := m.Get(tc.id)
			if err != nil {
				t.Fatal(err)
			}
			if !tc.check(tpl) {
				t.Errorf("%s does not: %s", tc.id, tc.what)
			}
		})
	}
}

func TestGoldenResolved(t *testing.T) {
	t.Parallel()
	m, _ := newManager(t, true)
	for _, id := range append(slices.Clone(systemIDs), "my-docs", "my-docs-fr") {
		t.Run(id, func(t *testing.T) {
			t.Parallel()
			r, err := m.Resolve(id)
			if err != nil {
				t.Fatal(err)
			}
			b, err := json.MarshalIndent(r, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			golden(t, filepath.Join("testdata", "golden", id+".json"), append(b, '\n'))
		})
	}
}

func mustRaw(t *testing.T, m *Manager, id string) []byte {
	t.Helper()
	b, err := m.Raw(id)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}
