package agent

import (
	"encoding/json"
	"log/slog"
	"strings"
	"testing"

	"github.com/baton-app/baton/backend/template"
)

// templatePrompt renders a system template's prompt of phase with the
// template's defaults and values.
func templatePrompt(t *testing.T, id string, phase template.Phase, values map[string]any) string {
	t.Helper()
	mgr, err := template.New(t.TempDir(), template.Options{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	tmpl, err := mgr.Get(id)
	if err != nil {
		t.Fatal(err)
	}
	all := map[string]any{template.VarCWD: "/p/demo", template.VarMaxTasks: 10}
	for name, v := range tmpl.Variables {
		if v.Default != nil {
			all[name] = v.Default
		}
	}
	for k, v := range values {
		all[k] = v
	}
	p, err := tmpl.Render(phase, all)
	if err != nil {
		t.Fatal(err)
	}
	return p.System + "\n\n" + p.User
}

// demoFiles is a small Go project: api has tests, store and examples have
// none; examples/ holds a finding.
var demoFiles = map[string]string{
	"README.md":            "# Demo\n",
	"go.mod":               "module demo\n",
	"api/server.go":        "package api\n",
	"api/server_test.go":   "package api\n",
	"store/db.go":          "package store\n\nfunc Open() {\n\t_ = close()\n}\n",
	"examples/basic.go":    "package main\n\n// TODO: handle the error\nfunc main() {}\n",
	"examples/advanced.go": "package main\n",
}

func demoMind(initial string) *Mind {
	m := &Mind{cwd: "/p/demo", initial: initial, prompt: initial, reads: map[string]string{}, untracked: map[string]bool{}}
	for p, text := range demoFiles {
		m.files = append(m.files, File{Path: p, Size: int64(len(text))})
	}
	return m
}

func plannedTasks(t *testing.T, m *Mind) []map[string]any {
	t.Helper()
	data, _ := m.taskList()
	b, _ := json.Marshal(data["tasks"])
	var tasks []map[string]any
	if err := json.Unmarshal(b, &tasks); err != nil {
		t.Fatal(err)
	}
	return tasks
}

// The demo's plan follows the template: documentation plans one page per
// component under OUTPUT_DIR and an index after them; test-coverage plans
// tests for the packages without tests; bug-hunt hunts per area.
func TestPlanFollowsTheTemplate(t *testing.T) {
	t.Parallel()
	req := map[string]any{template.VarUserRequest: "Help with this project"}

	docs := plannedTasks(t, demoMind(templatePrompt(t, "documentation", template.PhaseTaskPlanning,
		map[string]any{template.VarUserRequest: "Help with this project", "OUTPUT_DIR": "handbook"})))
	last := docs[len(docs)-1]
	if len(docs) < 3 || !strings.Contains(last["title"].(string), "handbook/README.md") || len(last["dependencies"].([]any)) != len(docs)-1 {
		t.Fatalf("documentation plan = %v", docs)
	}
	for _, d := range docs[:len(docs)-1] {
		outs, _ := d["expected_outputs"].([]any)
		if !strings.HasPrefix(d["title"].(string), "Write the ") || len(outs) != 1 || !strings.HasPrefix(outs[0].(string), "handbook/") {
			t.Errorf("documentation task = %v, want a page under handbook/", d)
		}
	}

	tests := plannedTasks(t, demoMind(templatePrompt(t, "test-coverage", template.PhaseTaskPlanning, req)))
	var scopes []string
	for _, d := range tests {
		scopes = append(scopes, d["scope"].([]any)[0].(string))
		if !strings.HasPrefix(d["title"].(string), "Add tests for ") || len(d["acceptance_criteria"].([]any)) == 0 {
			t.Errorf("test-coverage task = %v", d)
		}
	}
	if strings.Join(scopes, ",") != "examples/,store/" {
		t.Errorf("test-coverage plans tests for %v, want the untested packages examples/ and store/", scopes)
	}

	bugs := plannedTasks(t, demoMind(templatePrompt(t, "bug-hunt", template.PhaseTaskPlanning, req)))
	for _, d := range bugs {
		if !strings.HasPrefix(d["title"].(string), "Hunt bugs in ") {
			t.Errorf("bug-hunt task = %v", d)
		}
	}
}

// Each worker reads the files of its own scope (a task about examples/
// reads examples/, not the top-level files), and a bug hunter reports its
// findings with file and line.
func TestWorkerReadsItsScopeAndReportsFindings(t *testing.T) {
	t.Parallel()
	worker := templatePrompt(t, "bug-hunt", template.PhaseWorkerExecution, map[string]any{
		template.VarUserRequest: "Find bugs", template.VarTaskID: "task_002", template.VarTaskTitle: "Hunt bugs in examples",
		template.VarTaskDescription: "Look for bugs in examples.", template.VarTaskScope: "examples",
		template.VarTaskJSON: `{"id": "task_002"}`})
	m := demoMind(worker)
	m.sessionID = "local___orch_r1_worker_task_002"
	scope := m.WorkerReads()
	if strings.Join(scope, ",") != "examples/advanced.go,examples/basic.go" && strings.Join(scope, ",") != "examples/basic.go,examples/advanced.go" {
		t.Fatalf("the worker of examples/ reads %v", scope)
	}
	for _, f := range scope {
		m.reads[f] = demoFiles[f]
	}
	w := m.Work(scope)
	if w.Write || len(w.Changes) != 0 {
		t.Errorf("a bug hunt writes %+v", w.Changes)
	}
	rep := m.Report(w, Outcome{})
	if !strings.Contains(rep.output, "`examples/basic.go:3`: a marker of unfinished work (`// TODO: handle the error`)") ||
		!strings.Contains(rep.summary, "1 finding") {
		t.Errorf("bug hunt report = %q / %q", rep.summary, rep.output)
	}
}
