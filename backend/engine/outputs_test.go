package engine

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/baton-app/baton/backend/template"
)

// claiming is a worker of task that reports docs/<task>.md written; it
// writes it only from its (writeFrom)th report on (0: never), and also
// writes extra (outside its scope) when set.
func claiming(task string, writeFrom int, extra string) func(h *fakeHost, s *fakeSession, t string, reprompt bool) bool {
	var mu sync.Mutex
	n := 0
	return func(h *fakeHost, s *fakeSession, t string, _ bool) bool {
		if t != task {
			return false
		}
		mu.Lock()
		n++
		k := n
		mu.Unlock()
		if writeFrom > 0 && k >= writeFrom {
			writeOutput(s.opts.Cwd, "docs/"+task+".md", "# "+task+"\n")
		}
		if extra != "" {
			writeOutput(s.opts.Cwd, extra, "written by "+task+"\n")
			s.tool("Write", map[string]any{"file_path": filepath.Join(s.opts.Cwd, extra), "content": "x"})
		}
		s.say(block("completion", map[string]any{"task_id": task, "status": "success", "summary": "Wrote docs/" + task + ".md",
			"output_files": []string{"docs/" + task + ".md"}}))
		s.endTurn(h)
		return true
	}
}

// TestClaimsWithoutWritingAreAskedForThenCompletedWithIssues: a worker
// that reports a file it never wrote is asked again once, naming it; when
// it still has not, the task completes with issues: the file is not among
// its files, and the run says so.
func TestClaimsWithoutWritingAreAskedForThenCompletedWithIssues(t *testing.T) {
	t.Parallel()
	tasks := plan(planned{"task_001", 5, nil}, planned{"task_002", 4, nil})
	h := newHarness(t, testTemplate(nil), scripted(tasks, claiming("task_002", 0, "")), true)
	id := h.create()
	if err := h.eng.Start(context.Background(), id); err != nil {
		t.Fatal(err)
	}
	run := h.wait(id)
	if run.Status != "completed_with_issues" || run.TasksCompleted != 2 {
		t.Fatalf("run = %s %d: %v", run.Status, run.TasksCompleted, run.Issues)
	}
	if issues := strings.Join(run.Issues, "\n"); !strings.Contains(issues, "1 task did not write what it declared: task_002 (docs/task_002.md).") {
		t.Errorf("issues:\n%s", issues)
	}
	w := h.workers(id)["task_002"]
	if strings.Join(w.MissingOutputs, ",") != "docs/task_002.md" || len(w.OutputFiles) != 0 {
		t.Errorf("task_002: missing %v, files %v", w.MissingOutputs, w.OutputFiles)
	}
	asked := 0
	for _, s := range h.host.sent() {
		if strings.Contains(s, "your task task_002 declares 1 output, which is not written there: docs/task_002.md") {
			asked++
		}
	}
	if asked != 1 {
		t.Errorf("asked again %d times for the missing output, want once", asked)
	}
	snap, _ := h.eng.Snapshot(context.Background(), id)
	for _, f := range snap.FinalReport.Files {
		if f.Path == "docs/task_002.md" {
			t.Errorf("the report lists the file task_002 never wrote: %+v", snap.FinalReport.Files)
		}
	}
	if md := Report(snap); !strings.Contains(md, "**Outputs not written** [high] `task_002`") ||
		!strings.Contains(md, "**Declared but not written:** `docs/task_002.md`") {
		t.Errorf("the Markdown report:\n%s", md)
	}
}

// TestWrittenAfterTheAskCompletes: asked again, the worker writes the file,
// and the task completes cleanly.
func TestWrittenAfterTheAskCompletes(t *testing.T) {
	t.Parallel()
	tasks := plan(planned{"task_001", 5, nil})
	h := newHarness(t, testTemplate(nil), scripted(tasks, claiming("task_001", 2, "")), true)
	id := h.create()
	if err := h.eng.Start(context.Background(), id); err != nil {
		t.Fatal(err)
	}
	if run := h.wait(id); run.Status != "completed" {
		t.Fatalf("run = %s: %v", run.Status, run.Issues)
	}
	if w := h.workers(id)["task_001"]; len(w.MissingOutputs) != 0 || strings.Join(w.OutputFiles, ",") != "docs/task_001.md" {
		t.Errorf("task_001 = %+v", w)
	}
}

// TestPlanModeProposesItsOutputs: in plan mode a worker proposes its
// outputs in its report and writes nothing, so none is missing and the run
// completes without asking again.
func TestPlanModeProposesItsOutputs(t *testing.T) {
	t.Parallel()
	tasks := plan(planned{"task_001", 5, nil})
	tmpl := testTemplate(func(tm *template.Template) { tm.Config.PermissionMode = "plan" })
	h := newHarness(t, tmpl, scripted(tasks, claiming("task_001", 0, "")), true)
	id := h.create()
	if err := h.eng.Start(context.Background(), id); err != nil {
		t.Fatal(err)
	}
	if run := h.wait(id); run.Status != "completed" {
		t.Fatalf("run = %s: %v", run.Status, run.Issues)
	}
	if w := h.workers(id)["task_001"]; len(w.MissingOutputs) != 0 {
		t.Errorf("task_001 missing %v in plan mode", w.MissingOutputs)
	}
	for _, s := range h.host.sent() {
		if strings.Contains(s, "which is not written there") {
			t.Errorf("a plan-mode worker was asked for its proposed outputs: %q", s)
		}
	}
}

// TestWritesOutsideTheScope: a file changed outside the task's scope is a
// warning in a shared run; with strictScope the task fails.
func TestWritesOutsideTheScope(t *testing.T) {
	t.Parallel()
	for _, strict := range []bool{false, true} {
		t.Run(map[bool]string{false: "warning", true: "strict"}[strict], func(t *testing.T) {
			t.Parallel()
			tasks := plan(planned{"task_001", 5, nil})
			tasks[0]["expected_outputs"] = []string{"docs/task_001.md"}
			h := newHarness(t, testTemplate(func(tp *template.Template) { tp.Config.StrictScope = strict }),
				scripted(tasks, claiming("task_001", 1, "notes/stray.md")), true)
			id := h.create()
			if err := h.eng.Start(context.Background(), id); err != nil {
				t.Fatal(err)
			}
			run := h.wait(id)
			w := h.workers(id)["task_001"]
			if !strict {
				if run.Status != "completed" || strings.Join(w.OutOfScope, ",") != "notes/stray.md" {
					t.Fatalf("run %s %v, task_001 outside its scope: %v (missing %v)", run.Status, run.Issues, w.OutOfScope, w.MissingOutputs)
				}
				rep, _ := h.eng.FinalReport(context.Background(), id)
				found := false
				for _, l := range rep.Limitations {
					found = found || (l.Kind == "scope" && l.TaskID == "task_001" && strings.Contains(l.Text, "notes/stray.md"))
				}
				if !found {
					t.Errorf("no scope warning: %+v", rep.Limitations)
				}
				return
			}
			if w.Status != "failed" || !strings.Contains(w.Error, "outside its scope, which this template does not allow: notes/stray.md") {
				t.Errorf("task_001 = %s: %s", w.Status, w.Error)
			}
		})
	}
}

// TestWorktreeTaskIsJudgedByItsDiff: in a worktree run what the task
// changed is git's list of its worktree's changes: a claimed file not
// among them is missing, a change outside the scope is listed.
func TestWorktreeTaskIsJudgedByItsDiff(t *testing.T) {
	t.Parallel()
	tasks := plan(planned{"t1", 5, nil})
	tasks[0]["scope"] = []string{"a.txt"}
	h, repo := newIsoHarness(t, func(tp *template.Template) { tp.Config.MaxRetries = 1 },
		scripted(tasks, func(h *fakeHost, s *fakeSession, task string, _ bool) bool {
			_ = os.WriteFile(filepath.Join(s.opts.Cwd, "a.txt"), []byte(replaceLine(lines10, 2, "changed")), 0o644)
			_ = os.WriteFile(filepath.Join(s.opts.Cwd, "stray.txt"), []byte("stray\n"), 0o644)
			s.say(block("completion", map[string]any{"task_id": task, "status": "success", "summary": "Did it",
				"output_files": []string{"a.txt", "README.md", "notes.md"}}))
			s.endTurn(h)
			return true
		}))
	id := h.createIn(repo, nil)
	run := h.wait(id)
	if run.Status != "completed_with_issues" {
		t.Fatalf("run = %s: %v", run.Status, run.Issues)
	}
	w := h.workers(id)["t1"]
	if strings.Join(w.MissingOutputs, ",") != "README.md,notes.md" || strings.Join(w.OutOfScope, ",") != "stray.txt" ||
		strings.Join(w.OutputFiles, ",") != "a.txt" {
		t.Errorf("t1: missing %v, outside %v, files %v", w.MissingOutputs, w.OutOfScope, w.OutputFiles)
	}
}

// TestReportListsOnlyFilesInTheResult: a failed task's files are not
// merged into the run branch, so the report does not list them as the
// run's files: they are reported as not in the result.
func TestReportListsOnlyFilesInTheResult(t *testing.T) {
	t.Parallel()
	tasks := plan(planned{"t1", 5, nil}, planned{"t2", 5, nil})
	for _, tk := range tasks {
		tk["scope"] = []string{}
	}
	h, repo := newIsoHarness(t, func(tp *template.Template) { tp.Config.MaxRetries = 0 },
		scripted(tasks, func(h *fakeHost, s *fakeSession, task string, _ bool) bool {
			_ = os.WriteFile(filepath.Join(s.opts.Cwd, task+".txt"), []byte(task+"\n"), 0o644)
			status := "success"
			if task == "t2" {
				status = "failed"
			}
			s.say(block("completion", map[string]any{"task_id": task, "status": status, "summary": "Did " + task,
				"error": "it broke", "output_files": []string{task + ".txt"}}))
			s.endTurn(h)
			return true
		}))
	id := h.createIn(repo, nil)
	if run := h.wait(id); run.Status != "completed_with_issues" {
		t.Fatalf("run = %s: %v", run.Status, run.Issues)
	}
	rep, err := h.eng.FinalReport(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	var files, absent []string
	for _, f := range rep.Files {
		files = append(files, f.Path)
	}
	for _, f := range rep.Absent {
		absent = append(absent, f.Path)
	}
	if strings.Join(files, ",") != "t1.txt" || strings.Join(absent, ",") != "t2.txt" {
		t.Errorf("files %v, absent %v", files, absent)
	}
}
