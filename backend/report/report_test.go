package report

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/baton-app/baton/backend/store"
)

func TestOutcomeLabel(t *testing.T) {
	t.Parallel()
	if got := OutcomeLabel("completed_with_issues"); got != "completed with issues" {
		t.Errorf("label = %q", got)
	}
}

// A "resolution" that leaves the conflict to someone resolves nothing.
func TestConflictOpen(t *testing.T) {
	t.Parallel()
	for res, open := range map[string]bool{"": true, "  ": true, "Left to the user: the simulator changes no files": true,
		"unresolved": true, "TBD": true, "kept task_001's intro": false, "Merged both tables": false} {
		if got := ConflictOpen(res); got != open {
			t.Errorf("ConflictOpen(%q) = %v, want %v", res, got, open)
		}
	}
}

// Build on its own: the limitations that need a worker's words
// or a run without aggregation.
func TestBuildLimitations(t *testing.T) {
	t.Parallel()
	done := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	run := store.Run{ID: "orch_x", Status: "completed", CompletedAt: &done}
	tasks := []store.Task{{ID: "a", Title: "A"}, {ID: "b", Title: "B"}, {ID: "c", Title: "C"},
		{ID: "d", Title: "D", Skipped: true}}
	workers := []store.Worker{
		{TaskID: "a", Status: "completed", Unstructured: true, OutputFiles: []string{"x.md", "y.md"}},
		{TaskID: "b", Status: "completed", Error: "partly done: no tests", Conflicts: []string{"x.md: a and b disagree"},
			OutputFiles: []string{"x.md"}},
		{TaskID: "c", Status: "cancelled", Questions: []string{"Which database?"}},
	}
	rep := Build(run, tasks, workers, nil, nil)
	var limits []string
	for _, l := range rep.Limitations {
		limits = append(limits, l.Kind+" "+l.TaskID+": "+l.Text)
	}
	want := []string{
		"unstructured a: completed without a structured report; its result was guessed from the worker's words",
		"partial b: partly done: no tests",
		"failed c: the task cancelled without a reason",
		"question c: Which database?",
		"conflict b: x.md: a and b disagree",
	}
	if !reflect.DeepEqual(limits, want) {
		t.Errorf("limitations =\n%s\nwant\n%s", strings.Join(limits, "\n"), strings.Join(want, "\n"))
	}
	if len(rep.Files) != 2 || rep.Files[0].Path != "x.md" || strings.Join(rep.Files[0].Tasks, ",") != "a,b" {
		t.Errorf("files = %+v", rep.Files)
	}
	if !rep.Completed[0].Unstructured || rep.Tasks != (TaskCounts{Total: 4, Completed: 2, Failed: 1, Skipped: 1, SkippedByUser: 1}) {
		t.Errorf("tasks = %+v %+v", rep.Tasks, rep.Completed)
	}
	// With an aggregation answer, the worker's conflict is the
	// aggregation's to resolve.
	answers := []store.PhaseAnswer{{Phase: "aggregation", Status: "valid", Data: json.RawMessage(`{"status":"success"}`)}}
	for _, l := range Build(run, tasks, workers, answers, nil).Limitations {
		if l.Kind == LimitConflict {
			t.Errorf("conflict listed although the aggregation took it up: %+v", l)
		}
	}
}

// The history's facts: review verdicts, answers to questions, retries,
// re-prompts, QA rounds and limit waits.
func TestBuildFromHistory(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	run := store.Run{ID: "orch_h", Status: "completed", CostUSD: 0.1 + 0.2, Limits: store.RunLimits{CostSimulated: true}}
	tasks := []store.Task{{ID: "a", Title: "A"}}
	workers := []store.Worker{{TaskID: "a", Status: "completed"}}
	rep := Build(run, tasks, workers, nil, []Fact{
		{Kind: FactRejected, TaskID: "a", By: "the user", Text: "too short", At: at},
		{Kind: FactRetry, TaskID: "a", Text: "rejected by the user: too short", At: at},
		{Kind: FactQuestion, TaskID: "a", Text: "Which port?"},
		{Kind: FactAnswered, TaskID: "a", Text: "8080", At: at},
		{Kind: FactApproved, TaskID: "a", By: "the reviewer", Text: "good", At: at},
		{Kind: FactReprompt}, {Kind: FactReprompt},
		{Kind: FactRemediation, Text: "round 1", Tasks: []string{"qa1-fix-01"}},
		{Kind: FactLimitWait},
	})
	var got []string
	for _, d := range rep.Decisions {
		got = append(got, d.Kind+" "+d.TaskID+" by "+d.By+": "+d.Question+"|"+d.Text)
	}
	want := []string{"rejected a by the user: |too short", "answer a by the user: Which port?|8080", "approved a by the reviewer: |good"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("decisions = %q, want %q", got, want)
	}
	it := rep.Iterations
	if it.Total != 2 || len(it.Retries) != 1 || len(it.Rejections) != 1 || it.Reprompts != 2 ||
		len(it.Remediation) != 1 || it.Remediation[0].Round != 1 || it.Remediation[0].Tasks[0] != "qa1-fix-01" {
		t.Errorf("iterations = %+v", it)
	}
	if rep.Cost.LimitWaits != 1 || rep.Cost.USD != 0.3 || rep.Cost.Label != "$0.3000 (simulated)" {
		t.Errorf("cost = %+v", rep.Cost)
	}
	md := Markdown(run, tasks, workers, nil, &rep)
	for _, s := range []string{"## Final report", "- Iterations: 2 (QA remediation rounds: 1, worker retries: 1, review rejections: 1, re-prompts: 2)",
		"- Answer to `a` (Which port?): 8080", "- Rejected `a` by the user: too short", "- QA round 1: qa1-fix-01", "; limit waits: 1",
		"| `a` | A | 0 | completed |"} {
		if !strings.Contains(md, s) {
			t.Errorf("the Markdown lacks %q:\n%s", s, md)
		}
	}
}

// The statuses the report reads and decides are the store's.
func TestStatusNamesAreTheStores(t *testing.T) {
	t.Parallel()
	for _, s := range []string{runError, runCancelled, StatusCompleted, StatusCompletedWithIssues, StatusFailed} {
		if !store.ValidRunStatus(s) {
			t.Errorf("run status %q is not the store's", s)
		}
	}
	for _, s := range []string{workerCompleted, workerFailed, workerCancelled, workerTimeout} {
		if !store.ValidWorkerStatus(s) {
			t.Errorf("worker status %q is not the store's", s)
		}
	}
}

// A run that completed every task with passing checks is completed; one
// that completed none failed.
func TestOutcome(t *testing.T) {
	t.Parallel()
	tasks := []store.Task{{ID: "a", Title: "A"}, {ID: "b", Title: "B"}}
	clean := Build(store.Run{Status: "verifying"}, tasks, []store.Worker{{TaskID: "a", Status: "completed"}, {TaskID: "b", Status: "completed"}}, nil, nil)
	if status, issues := Outcome(clean, nil); status != StatusCompleted || len(issues) != 0 {
		t.Errorf("clean run = %s %q", status, issues)
	}
	none := Build(store.Run{Status: "verifying"}, tasks, []store.Worker{{TaskID: "a", Status: "failed", Error: "x"}, {TaskID: "b", Status: "failed", Error: "y"}}, nil, nil)
	if status, issues := Outcome(none, nil); status != StatusFailed || !strings.Contains(strings.Join(issues, " "), "None of the 2 tasks completed.") {
		t.Errorf("nothing done = %s %q", status, issues)
	}
	some := Build(store.Run{Status: "verifying"}, tasks, []store.Worker{{TaskID: "a", Status: "completed"}, {TaskID: "b", Status: "failed", Error: "y"}}, nil, nil)
	if status, issues := Outcome(some, nil); status != StatusCompletedWithIssues || !strings.Contains(strings.Join(issues, " "), "1 of 2 tasks failed: b.") {
		t.Errorf("one failed = %s %q", status, issues)
	}
}

// A task the user skipped is no issue: the run completes and the report
// says it in a note; a task skipped because its dependency failed stays an
// issue.
func TestOutcomeOfSkippedTasks(t *testing.T) {
	t.Parallel()
	tasks := []store.Task{{ID: "a", Title: "A"}, {ID: "b", Title: "B"}, {ID: "c", Title: "C", Dependencies: []string{"b"}}}
	byUser := Build(store.Run{Status: "verifying"}, tasks, []store.Worker{{TaskID: "a", Status: "completed"}, {TaskID: "b", Status: "completed"},
		{TaskID: "c", Status: "cancelled", Skipped: true, Error: ReasonSkippedByUser}}, nil, nil)
	if status, issues := Outcome(byUser, nil); status != StatusCompleted || len(issues) != 0 {
		t.Errorf("a task skipped by the user = %s %q", status, issues)
	}
	if !reflect.DeepEqual(byUser.Notes, []string{"1 task skipped by you: c."}) || !byUser.Skipped[0].ByUser || len(byUser.Limitations) != 0 {
		t.Errorf("notes %q, skipped %+v, limitations %+v", byUser.Notes, byUser.Skipped, byUser.Limitations)
	}
	md := Markdown(store.Run{Status: "completed"}, tasks, nil, nil, &byUser)
	if !strings.Contains(md, "1 task skipped by you: c.") {
		t.Errorf("the Markdown lacks the note:\n%s", md)
	}
	// Everything the user did not skip failed: the run failed.
	allFailed := Build(store.Run{Status: "verifying"}, tasks, []store.Worker{{TaskID: "a", Status: "failed", Error: "x"}, {TaskID: "b", Status: "failed", Error: "y"},
		{TaskID: "c", Status: "cancelled", Skipped: true, Error: ReasonSkippedByUser}}, nil, nil)
	if status, issues := Outcome(allFailed, nil); status != StatusFailed || !strings.Contains(strings.Join(issues, " "), "None of the 2 tasks completed.") {
		t.Errorf("all failed = %s %q", status, issues)
	}
	byFailure := Build(store.Run{Status: "verifying"}, tasks, []store.Worker{{TaskID: "a", Status: "completed"}, {TaskID: "b", Status: "failed", Error: "y"},
		{TaskID: "c", Status: "cancelled", Skipped: true, Error: "its dependency b failed"}}, nil, nil)
	status, issues := Outcome(byFailure, nil)
	if status != StatusCompletedWithIssues || !strings.Contains(strings.Join(issues, " "), "1 of 3 tasks skipped: c.") || len(byFailure.Notes) != 0 {
		t.Errorf("a task skipped after a failure = %s %q %q", status, issues, byFailure.Notes)
	}
}

// A pull request says what the run was asked, its outcome and each task.
func TestPullRequestText(t *testing.T) {
	t.Parallel()
	tasks := []store.Task{{ID: "a", Title: "Document the store"}, {ID: "b", Title: "Document the engine"}}
	run := store.Run{ID: "orch_1", TemplateName: "Documentation", Request: "Document this project\nwith care", Status: "completed_with_issues"}
	rep := Build(run, tasks, []store.Worker{{TaskID: "a", Status: "completed", OutputFiles: []string{"docs/store.md"}},
		{TaskID: "b", Status: "failed", Error: "the build broke"}}, nil, nil)
	rep.Issues = []string{"1 of 2 tasks failed: b."}
	title, body := PullRequest(run, rep)
	if title != "Document this project" {
		t.Errorf("title = %q", title)
	}
	for _, want := range []string{"Made by Baton run `orch_1` (Documentation)", "> Document this project\n> with care",
		"**Outcome: completed with issues.**\n- 1 of 2 tasks failed: b.", "- [x] `a` Document the store\n",
		"- [ ] `b` Document the engine — failed: the build broke", "- `docs/store.md` (a)", "## Known limitations"} {
		if !strings.Contains(body, want) {
			t.Errorf("body lacks %q:\n%s", want, body)
		}
	}
}
