package console

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/baton-app/baton/backend/engine"
	"github.com/baton-app/baton/backend/runstatus"
	"github.com/baton-app/baton/backend/service"
	"github.com/baton-app/baton/backend/store"
	"github.com/baton-app/baton/backend/testsupport"
)

// storeRuns writes two runs into the store of $BATON_CONFIG_DIR: one that
// completed with issues (a partial aggregation with open conflicts, a
// failing verification, a question never answered) and one still waiting
// for its plan to be confirmed.
func storeRuns(t *testing.T) (done, waiting string) {
	t.Helper()
	st, err := service.OpenStore(quietLogger(&bytes.Buffer{}))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ctx := context.Background()
	now := time.Now().UTC()
	r := store.Run{ID: "orch_aaaaaaaaaaaa", TemplateID: "documentation", TemplateName: "Documentation", Cwd: "/tmp/p",
		Request: "Document the store", Status: "created", CreatedAt: now,
		Host: store.RunHost{Kind: "claude-code", Label: "Claude Code (CLI)", Path: "/opt/claude", Version: "2.1.328",
			Description: "Claude Code CLI 2.1.328 (/opt/claude)"},
		State: json.RawMessage(`{"checks":{"on":true,"baseline":true,"rounds":1,"running":-1,"note":"Baton runs the project's checks it found (go.mod): go build ./..., go test ./...."}}`)}
	if err := st.CreateRun(ctx, r); err != nil {
		t.Fatal(err)
	}
	tasks := []store.Task{{ID: "task_001", Title: "Document the API"}, {ID: "task_002", Title: "Document the CLI"}}
	agg, _ := json.Marshal(map[string]any{"status": "partial", "summary": "Merged what agreed.", "conflicts": []map[string]any{
		{"type": "conflict", "description": "README.md: two intros", "tasks": []string{"task_001", "task_002"}},
		{"type": "conflict", "description": "docs/api.md: two tables", "resolution": "kept task_001's"}}})
	ver, _ := json.Marshal(map[string]any{"status": "fail", "summary": "Not yet.", "issues": []map[string]any{
		{"description": "docs/api.md lacks an example", "severity": "high"}}})
	end := now.Add(time.Minute)
	r.Status, r.CompletedAt, r.TasksTotal, r.TasksCompleted = "completed_with_issues", &end, 2, 2
	r.Issues = []string{"The aggregation is partial: Merged what agreed.", "1 conflict is still open: README.md: two intros."}
	workers := []store.Worker{
		{TaskID: "task_001", Status: "completed", Summary: "Wrote docs/api.md", OutputFiles: []string{"docs/api.md"},
			OutOfScope: []string{"go.mod"}},
		{TaskID: "task_002", Status: "completed", Summary: "Wrote docs/cli.md", OutputFiles: []string{"docs/cli.md"},
			Questions: []string{"Should the CLI page list the exit codes?"}, MissingOutputs: []string{"docs/README.md"}},
	}
	checks := []store.CheckResult{
		{Round: 0, Position: 0, Name: "go build", Command: "go build ./...", Status: "passed", DurationMS: 1200, Verdict: "baseline"},
		{Round: 0, Position: 1, Name: "go test", Command: "go test ./...", Status: "passed", DurationMS: 3400, Verdict: "baseline"},
		{Round: 1, Position: 0, Name: "go build", Command: "go build ./...", Status: "passed", DurationMS: 1100, Verdict: "passes"},
		{Round: 1, Position: 1, Name: "go test", Command: "go test ./...", Status: "failed", ExitCode: 1, DurationMS: 3600,
			Verdict: "broken", Tail: "--- FAIL: TestAPI\nFAIL x/api 0.01s\n"},
	}
	snap := engine.Snapshot{Run: r, Tasks: tasks, Workers: workers, Answers: []store.PhaseAnswer{
		{Phase: "aggregation", Status: "valid", Data: agg}, {Phase: "verification", Status: "valid", Data: ver}},
		Checks: &engine.RunChecks{Results: checks}}
	rep, _ := json.Marshal(engine.BuildFinalReport(snap, nil))
	if err := st.Commit(ctx, r.ID, store.Change{Run: &r, Tasks: tasks, ReplaceTasks: true, Workers: workers,
		Answers: snap.Answers, Checks: checks, FinalReport: rep}); err != nil {
		t.Fatal(err)
	}
	w := store.Run{ID: "orch_bbbbbbbbbbbb", TemplateID: "documentation", TemplateName: "Documentation", Cwd: "/tmp/p",
		Request: "Document more", Status: "confirming", CreatedAt: now.Add(time.Second)}
	if err := st.CreateRun(ctx, w); err != nil {
		t.Fatal(err)
	}
	return r.ID, w.ID
}

func TestShowExportDeleteAStoredRun(t *testing.T) {
	t.Setenv("BATON_CONFIG_DIR", t.TempDir())
	done, waiting := storeRuns(t)

	var out, errOut bytes.Buffer
	if code := ShowCLI([]string{done}, &out, &errOut); code != ExitOK {
		t.Fatalf("show: exit %d, %s", code, errOut.String())
	}
	for _, want := range []string{"Status:  completed with issues", "Issues:\n  - The aggregation is partial",
		"Result (aggregation partial): Merged what agreed.",
		"Conflicts:\n  - README.md: two intros (task_001, task_002); OPEN", "docs/api.md: two tables; resolved: kept task_001's",
		"Verification: fail: Not yet.", "issue [high] docs/api.md lacks an example",
		"Questions still unanswered:\n  - task_002: Should the CLI page list the exit codes?",
		"Files:\n  docs/api.md (task_001)\n  docs/cli.md (task_002)", "Final report: 2 completed", "Known limitations:",
		"Host:    Claude Code CLI 2.1.328 (/opt/claude)", "Baton runs the project's checks it found (go.mod)",
		"Checks before the workers (baseline):\n  go build ./... passed, 1.2 s\n  go test ./... passed, 3.4 s",
		"Checks after the workers (round 1):\n  go build ./... passed, 1.1 s\n  go test ./... FAILED (exit 1), 3.6 s [broken]\n      | --- FAIL: TestAPI",
		"task_002 declared outputs it did not write: docs/README.md", "task_001 changed files outside its scope: go.mod",
		"checks: `go test ./...` failed (exit 1, 3.6 s); it passed before the run, so the run broke it.",
		"outputs task_002: it reported success, but Baton does not find these declared outputs written: docs/README.md",
		"scope task_001: it changed files outside its scope: go.mod"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("show lacks %q:\n%s", want, out.String())
		}
	}
	out.Reset()
	if code := HistoryCLI([]string{"--status", "completed with issues"}, &out, &errOut); code != ExitOK ||
		!strings.Contains(out.String(), done) || strings.Contains(out.String(), waiting) || !strings.Contains(out.String(), "completed with issues") {
		t.Errorf("history --status 'completed with issues': exit %d\n%s%s", code, out.String(), errOut.String())
	}

	out.Reset()
	if code := ExportCLI([]string{done}, &out, &errOut); code != ExitOK || !strings.Contains(out.String(), "Status: **completed with issues**") ||
		!strings.Contains(out.String(), "- Issue: The aggregation is partial") || !strings.Contains(out.String(), "## Final report") ||
		!strings.Contains(out.String(), "- Host: Claude Code CLI 2.1.328 (/opt/claude)") || !strings.Contains(out.String(), "### Checks Baton ran") ||
		!strings.Contains(out.String(), "| `go test ./...` | passed, 3.4 s | failed (exit 1), 3.6 s | broken |") ||
		!strings.Contains(out.String(), "**Declared but not written:** `docs/README.md`") {
		t.Errorf("export md: exit %d\n%s%s", code, out.String(), errOut.String())
	}
	file := filepath.Join(t.TempDir(), "run")
	out.Reset()
	if code := ExportCLI([]string{done, "--format", "json", "--output", file}, &out, &errOut); code != ExitOK {
		t.Fatalf("export json: exit %d, %s", code, errOut.String())
	}
	var got engine.Snapshot
	data, err := os.ReadFile(file + ".json")
	if err != nil || json.Unmarshal(data, &got) != nil || got.Run.Status != "completed_with_issues" || len(got.Run.Issues) != 2 ||
		got.FinalReport == nil || len(got.FinalReport.Files) != 2 || got.Checks == nil || len(got.Checks.Results) != 4 ||
		got.Run.Host.Path != "/opt/claude" || got.FinalReport.Checks == nil || len(got.FinalReport.Checks.After) != 2 {
		t.Errorf("the JSON export %s (%v): %.400s", file+".json", err, data)
	}
	errOut.Reset()
	if code := ExportCLI([]string{done, "--format", "pdf"}, &out, &errOut); code != ExitUsage || !strings.Contains(errOut.String(), "md or json") {
		t.Errorf("export --format pdf: exit %d, %q", code, errOut.String())
	}

	// A run that has not finished is not deleted, and nothing of it goes.
	errOut.Reset()
	if code := DeleteCLI([]string{waiting}, &out, &errOut); code != ExitError ||
		!strings.Contains(errOut.String(), "is confirming, not finished, so it was not deleted; cancel it first with: baton cancel "+waiting) {
		t.Errorf("delete of a waiting run: exit %d, %q", code, errOut.String())
	}
	out.Reset()
	if code := ShowCLI([]string{waiting}, &out, &errOut); code != ExitOK || !strings.Contains(out.String(), "has not finished (confirming)") {
		t.Errorf("the refused delete touched the run: exit %d\n%s", code, out.String())
	}
	out.Reset()
	if code := DeleteCLI([]string{done}, &out, &errOut); code != ExitOK || !strings.Contains(out.String(), "Deleted run "+done) {
		t.Errorf("delete: exit %d, %q %q", code, out.String(), errOut.String())
	}
	errOut.Reset()
	if code := ShowCLI([]string{done}, &out, &errOut); code != ExitError || !strings.Contains(errOut.String(), "there is no run") {
		t.Errorf("show after delete: exit %d, %q", code, errOut.String())
	}
	errOut.Reset()
	if code := DeleteCLI(nil, &out, &errOut); code != ExitUsage || !strings.Contains(errOut.String(), "usage: baton delete RUN_ID") {
		t.Errorf("delete without a run: exit %d, %q", code, errOut.String())
	}
}

// Each outcome has its own exit code; only a clean completed run exits 0.
func TestExitCodesPerOutcome(t *testing.T) {
	t.Parallel()
	codes := map[int]string{}
	for _, s := range runstatus.Runs() {
		code := exitCode(s.String())
		if s == engine.RunCompleted {
			if code != ExitOK {
				t.Errorf("completed exits %d", code)
			}
			continue
		}
		if code == ExitOK || code == ExitUsage {
			t.Errorf("%s exits %d", s, code)
		}
		if s.Finished() || s == engine.RunInterrupted || s == engine.RunPaused {
			if other, ok := codes[code]; ok {
				t.Errorf("%s and %s share exit code %d", s, other, code)
			}
			codes[code] = s.String()
		}
	}
	for status, want := range map[string]int{"completed_with_issues": ExitIssues, "failed": ExitFailed, "cancelled": ExitCancelled,
		"interrupted": ExitInterrupted, "error": ExitError, "confirming": ExitWaiting} {
		if got := exitCode(status); got != want {
			t.Errorf("exitCode(%s) = %d, want %d", status, got, want)
		}
	}
}

// tinyTemplate writes a custom template whose task limit the simulator's
// plan exceeds, so its task list fails its checks.
func tinyTemplate(t *testing.T, config string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(config, "templates"), 0o700); err != nil {
		t.Fatal(err)
	}
	custom := `{"id": "tiny", "name": "Tiny", "extends": "documentation", "config": {"maxTasks": 1}}`
	if err := os.WriteFile(filepath.Join(config, "templates", "tiny.json"), []byte(custom), 0o600); err != nil {
		t.Fatal(err)
	}
}

// A task list that fails its checks is printed with its problems and fixed
// with a plan file named at the prompt; without input the command ends with
// the run waiting and says how to go on, and "baton cancel" ends it.
func TestRunInvalidPlanIsFixedOrCancelled(t *testing.T) {
	testsupport.NeedChromium(t)
	config := t.TempDir()
	t.Setenv("BATON_CONFIG_DIR", config)
	tinyTemplate(t, config)
	plan := filepath.Join(t.TempDir(), "plan.json")
	if err := os.WriteFile(plan, []byte(`{"tasks": [{"id": "task_001", "title": "Document the store", "description": "Write docs/store.md", "scope": ["store"]}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := run(t, plan+"\n", "--template", "tiny", "--cwd", sample(t), "--message", "Document everything",
		"--yes", "--host", "sim", "--sim-speed", "50")
	if code != ExitOK {
		t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, ExitOK, stdout, stderr)
	}
	for _, want := range []string{"The proposed task list cannot be used:\n  - there are ", "more than the template's limit of 1",
		"Give a JSON plan file to use instead", "Using the plan in " + plan, "task_001 completed", "completed: 1 of 1 task completed"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, stdout)
		}
	}

	code, stdout, stderr = run(t, "", "--template", "tiny", "--cwd", sample(t), "--message", "Document everything",
		"--yes", "--host", "sim", "--sim-speed", "50")
	m := runIDPattern.FindStringSubmatch(stdout)
	if code != ExitWaiting || m == nil || !strings.Contains(stdout, "waits for a task list it can use. Give one with: baton run --resume "+m[1]+" --plan FILE") {
		t.Fatalf("without input: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, ExitWaiting, stdout, stderr)
	}
	var out, errOut bytes.Buffer
	if code := CancelCLI([]string{m[1], "--host", "sim"}, &out, &errOut); code != ExitOK || !strings.Contains(out.String(), "Cancelled run "+m[1]+" (it was confirming)") {
		t.Fatalf("cancel: exit %d\n%s%s", code, out.String(), errOut.String())
	}
	errOut.Reset()
	if code := CancelCLI([]string{m[1]}, &out, &errOut); code != ExitError || !strings.Contains(errOut.String(), "is already cancelled") {
		t.Errorf("cancel twice: exit %d, %q", code, errOut.String())
	}
	out.Reset()
	if code := DeleteCLI([]string{m[1]}, &out, &errOut); code != ExitOK {
		t.Errorf("delete after cancel: exit %d, %q", code, errOut.String())
	}
}

// A required variable left out is named with the flag that gives it, and
// "templates show --vars" marks it required.
func TestRunNamesTheMissingVariable(t *testing.T) {
	config := t.TempDir()
	t.Setenv("BATON_CONFIG_DIR", config)
	if err := os.MkdirAll(filepath.Join(config, "templates"), 0o700); err != nil {
		t.Fatal(err)
	}
	custom := `{"id": "needs-area", "name": "Needs an area", "extends": "documentation",
		"variables": {"AREA": {"type": "string", "label": "Area", "required": true}}}`
	if err := os.WriteFile(filepath.Join(config, "templates", "needs-area.json"), []byte(custom), 0o600); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := run(t, "", "--template", "needs-area", "--message", "Document it", "--cwd", sample(t), "--host", "sim")
	if code != ExitUsage || !strings.Contains(stderr, "Area (AREA) is required") || !strings.Contains(stderr, "--var AREA=…") {
		t.Fatalf("exit %d, stderr:\n%s", code, stderr)
	}
	var out, errOut bytes.Buffer
	if code := TemplatesCLI([]string{"show", "needs-area", "--vars"}, &out, &errOut); code != 0 ||
		!strings.Contains(out.String(), "--var AREA=…") || !strings.Contains(out.String(), "REQUIRED") {
		t.Errorf("templates show --vars: exit %d\n%s%s", code, out.String(), errOut.String())
	}
}

// "baton active" lists the runs that have not finished, as the window does,
// and "baton delete" refuses an interrupted one like every unfinished run.
func TestActiveAndDeleteOfAnInterruptedRun(t *testing.T) {
	t.Setenv("BATON_CONFIG_DIR", t.TempDir())
	done, waiting := storeRuns(t)
	st, err := service.OpenStore(quietLogger(&bytes.Buffer{}))
	if err != nil {
		t.Fatal(err)
	}
	interrupted := "orch_cccccccccccc"
	err = st.CreateRun(context.Background(), store.Run{ID: interrupted, TemplateID: "documentation", TemplateName: "Documentation",
		Cwd: "/tmp/p", Request: "Document the host", Status: "interrupted", CreatedAt: time.Now().UTC().Add(time.Minute)})
	st.Close()
	if err != nil {
		t.Fatal(err)
	}

	var out, errOut bytes.Buffer
	if code := ActiveCLI(nil, &out, &errOut); code != ExitOK {
		t.Fatalf("active: exit %d, %s", code, errOut.String())
	}
	lines := strings.Split(out.String(), "\n")
	if len(lines) < 3 || !strings.HasPrefix(lines[1], interrupted) || !strings.HasPrefix(lines[2], waiting) ||
		strings.Contains(out.String(), done) || !strings.Contains(out.String(), "baton run --resume RUN_ID") {
		t.Errorf("active lists, newest first, only the unfinished runs:\n%s", out.String())
	}
	if code := ActiveCLI([]string{"x"}, &out, &errOut); code != ExitUsage {
		t.Errorf("active x: exit %d", code)
	}

	errOut.Reset()
	if code := DeleteCLI([]string{interrupted}, &out, &errOut); code != ExitError ||
		!strings.Contains(errOut.String(), "run "+interrupted+" is interrupted, not finished, so it was not deleted; cancel it first with: baton cancel "+interrupted) {
		t.Errorf("delete of an interrupted run: exit %d, %q", code, errOut.String())
	}
	out.Reset()
	if code := ShowCLI([]string{interrupted}, &out, &errOut); code != ExitOK || !strings.Contains(out.String(), "Status:  interrupted") {
		t.Errorf("the refused delete touched the interrupted run: exit %d\n%s", code, out.String())
	}
}
