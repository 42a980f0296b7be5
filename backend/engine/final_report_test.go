package engine

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/baton-app/baton/backend/runstore"
	"github.com/baton-app/baton/backend/session"
	"github.com/baton-app/baton/backend/store"
	"github.com/baton-app/baton/backend/template"
)

// aggregatingWithConflicts answers every aggregation with one resolved and
// one unresolved conflict.
func aggregatingWithConflicts(inner agentFunc) agentFunc {
	return func(h *fakeHost, s *fakeSession, text string) {
		if !strings.Contains(text, "ASK aggregation") {
			inner(h, s, text)
			return
		}
		s.asked = "aggregation"
		s.say(block("aggregation", map[string]any{"status": "partial", "summary": "Merged.",
			"conflicts": []map[string]any{
				{"type": "conflict", "description": "README.md: both edit the intro", "resolution": "kept task_001's intro",
					"tasks": []string{"task_001", "task_002"}},
				{"type": "overlap", "description": "docs/x.md written twice", "files": []string{"docs/x.md"}},
			}}))
		s.endTurn(h)
	}
}

func TestFinalReportOfARunWithRejectionAndRemediation(t *testing.T) {
	t.Parallel()
	tasks := plan(planned{"task_001", 9, nil}, planned{"task_002", 8, nil}, planned{"task_003", 7, nil},
		planned{"task_004", 6, []string{"task_003"}})
	var mu sync.Mutex
	asked := false
	worker := func(h *fakeHost, s *fakeSession, task string, reprompt bool) bool {
		switch task {
		case "task_002":
			mu.Lock()
			first := !asked
			asked = true
			mu.Unlock()
			if !first {
				return false // after the answer: the usual success
			}
			s.say(block("completion", map[string]any{"task_id": task, "status": "needs_input",
				"questions": []string{"Which port should the server use?"}}))
		case "task_003":
			s.say(block("completion", map[string]any{"task_id": task, "status": "failed", "error": "the API is undocumented"}))
		default:
			return false
		}
		s.endTurn(h)
		return true
	}
	review := func(task string, n int, prompt string) (string, string) {
		if task == "task_001" && n == 1 {
			return "rejected", "the docs lack examples"
		}
		return "approved", "looks good"
	}
	agent := reviewing(aggregatingWithConflicts(verifying(scripted(tasks, worker), 5)), review)
	tmpl := testTemplate(func(tp *template.Template) {
		noFailedReportRetries(tp) // the QA round, not a retry, answers the failure
		tp.Config.MaxRetries = 0
		tp.Phases.Verification.MaxRemediationRounds = 1
		tp.Phases.Review = template.ReviewGate{Enabled: true, Reviewer: "orchestrator"}
		tp.Prompts.Review = template.Prompt{User: "ASK review {TASK_ID}\n{COMPLETION_REPORT}"}
	})
	tmpl.Config.MaxRetries = 1 // one rejection sends the task back; a second would fail it
	h := newHarness(t, tmpl, agent, true)
	id := h.create()
	ctx := context.Background()
	if err := h.eng.Start(ctx, id); err != nil {
		t.Fatal(err)
	}
	h.until("task_002 asks", func() bool { return len(h.workers(id)["task_002"].Questions) == 1 })
	if _, err := h.eng.FinalReport(ctx, id); !errors.Is(err, ErrNotFinished) {
		t.Errorf("FinalReport of a running run = %v, want ErrNotFinished", err)
	}
	if err := h.eng.Answer(ctx, id, "task_002", "Port 8080."); err != nil {
		t.Fatal(err)
	}
	run := h.wait(id)
	if run.Status != "completed_with_issues" {
		t.Fatalf("run = %s: %s %s", run.Status, run.Message, run.Error)
	}

	raw, err := h.st.FinalReport(ctx, id)
	if err != nil {
		t.Fatalf("no final report stored: %v", err)
	}
	var rep FinalReport
	if err := json.Unmarshal(raw, &rep); err != nil {
		t.Fatal(err)
	}
	if rep.RunID != id || rep.Status != "completed_with_issues" || rep.FinishedAt == nil || rep.Message != run.Message {
		t.Errorf("report head = %s %s %v %q", rep.RunID, rep.Status, rep.FinishedAt, rep.Message)
	}
	if want := (TaskCounts{Total: 5, Completed: 3, Failed: 1, Skipped: 1}); rep.Tasks != want {
		t.Errorf("counts = %+v, want %+v", rep.Tasks, want)
	}
	refIDs := func(refs []TaskRef) string {
		var out []string
		for _, r := range refs {
			out = append(out, r.ID)
		}
		return strings.Join(out, ",")
	}
	if got := refIDs(rep.Completed); got != "task_001,task_002,qa1-fix-01" {
		t.Errorf("completed = %s", got)
	}
	if len(rep.Failed) != 1 || rep.Failed[0].ID != "task_003" || rep.Failed[0].Title != "Do task_003" ||
		rep.Failed[0].Reason != "the API is undocumented" {
		t.Errorf("failed = %+v", rep.Failed)
	}
	if len(rep.Skipped) != 1 || rep.Skipped[0].ID != "task_004" || rep.Skipped[0].Reason != "skipped because task_003 failed" {
		t.Errorf("skipped = %+v", rep.Skipped)
	}
	if rep.Completed[0].Retries != 1 {
		t.Errorf("task_001 retries = %d, want 1 (sent back once)", rep.Completed[0].Retries)
	}

	it := rep.Iterations
	if len(it.Remediation) != 1 || it.Remediation[0].Round != 1 || strings.Join(it.Remediation[0].Tasks, ",") != "qa1-fix-01" {
		t.Errorf("remediation = %+v", it.Remediation)
	}
	if len(it.Rejections) != 1 || it.Rejections[0].TaskID != "task_001" || it.Rejections[0].Reason != "the docs lack examples" {
		t.Errorf("rejections = %+v", it.Rejections)
	}
	if len(it.Retries) != 1 || it.Retries[0].TaskID != "task_001" || !strings.Contains(it.Retries[0].Reason, "the docs lack examples") {
		t.Errorf("retries = %+v", it.Retries)
	}
	if it.Total != 2 {
		t.Errorf("iterations total = %d, want 2 (one QA round, one retry)", it.Total)
	}

	var decisions []string
	for _, d := range rep.Decisions {
		s := d.Kind + " " + d.TaskID + " by " + d.By + ": " + d.Text
		if d.Question != "" {
			s += " (asked: " + d.Question + ")"
		}
		if d.Resolution != "" {
			s += " -> " + d.Resolution
		}
		decisions = append(decisions, s)
	}
	for _, want := range []string{
		"rejected task_001 by the reviewer: the docs lack examples",
		"approved task_001 by the reviewer: looks good",
		"approved task_002 by the reviewer: looks good",
		"approved qa1-fix-01 by the reviewer: looks good",
		"answer task_002 by the user: Port 8080. (asked: Which port should the server use?)",
		"conflict  by the aggregation: README.md: both edit the intro -> kept task_001's intro",
		"conflict  by the aggregation: overlap: docs/x.md written twice",
	} {
		if indexOf(decisions, want) < 0 {
			t.Errorf("decisions lack %q:\n%s", want, strings.Join(decisions, "\n"))
		}
	}
	if len(decisions) != 7 {
		t.Errorf("%d decisions, want 7:\n%s", len(decisions), strings.Join(decisions, "\n"))
	}
	if i, j := indexOf(decisions, "rejected task_001"), indexOf(decisions, "approved task_001"); i < 0 || j < i {
		t.Errorf("the rejection of task_001 should come before its approval:\n%s", strings.Join(decisions, "\n"))
	}

	var files []string
	for _, f := range rep.Files {
		files = append(files, f.Path+"="+strings.Join(f.Tasks, "+"))
	}
	if got := strings.Join(files, " "); got != "docs/qa1-fix-01.md=qa1-fix-01 docs/task_001.md=task_001 docs/task_002.md=task_002" {
		t.Errorf("files = %s", got)
	}

	var limits []string
	for _, l := range rep.Limitations {
		limits = append(limits, l.Kind+" "+l.TaskID+" "+l.Severity+": "+l.Text)
	}
	wantLimits := []string{
		"failed task_003 : the API is undocumented",
		"skipped task_004 : skipped because task_003 failed",
		"conflict  : overlap: docs/x.md written twice",
		"verification task_001 high: docs/task_001.md lacks an example",
		// The run's folder has no checks: the report says so, never "pass".
		"checks  : No checks ran: the template names none and Baton found none in the project (a Makefile test target, go.mod, a package.json test script, Cargo.toml, pytest).",
	}
	if !reflect.DeepEqual(limits, wantLimits) {
		t.Errorf("limitations =\n%s\nwant\n%s", strings.Join(limits, "\n"), strings.Join(wantLimits, "\n"))
	}

	// The binding's path, the snapshot and the Markdown report show it.
	got, err := h.eng.FinalReport(ctx, id)
	if err != nil || !reflect.DeepEqual(got, rep) {
		t.Errorf("Engine.FinalReport = %+v, %v", got, err)
	}
	snap, err := h.eng.Snapshot(ctx, id)
	if err != nil || snap.FinalReport == nil || !reflect.DeepEqual(*snap.FinalReport, rep) {
		t.Fatalf("snapshot final report = %+v, %v", snap.FinalReport, err)
	}
	md := Report(snap)
	for _, want := range []string{"## Final report", "- Tasks: 3 completed, 1 failed, 1 skipped, 0 not run of 5",
		"- Iterations: 2 (QA remediation rounds: 1, worker retries: 1, review rejections: 1, re-prompts: 0)",
		"### Known limitations", "- **Failed** `task_003`: the API is undocumented",
		"- **Verification issue** [high] `task_001`: docs/task_001.md lacks an example (`docs/task_001.md`)",
		"- Rejected `task_001` by the reviewer: the docs lack examples",
		"- Answer to `task_002` (Which port should the server use?): Port 8080.",
		"- Conflict: README.md: both edit the intro; resolved: kept task_001's intro",
		"- Conflict: overlap: docs/x.md written twice; unresolved",
		"- QA round 1: qa1-fix-01", "### Files", "- `docs/task_001.md` (task_001)"} {
		if !strings.Contains(md, want) {
			t.Errorf("Markdown report lacks %q:\n%s", want, md)
		}
	}
	// Rebuilt from the history, the report says the same as the one
	// written when the run finished.
	events, err := runstore.Events(ctx, h.st, id)
	if err != nil {
		t.Fatal(err)
	}
	snap.FinalReport = nil
	if rebuilt := BuildFinalReport(snap, events); !reflect.DeepEqual(rebuilt, rep) {
		t.Errorf("rebuilt report differs:\n%+v\nstored\n%+v", rebuilt, rep)
	}

	// A restarted Baton still has it.
	h.close()
	h.open()
	again, err := h.eng.FinalReport(ctx, id)
	if err != nil || !reflect.DeepEqual(again, rep) {
		t.Errorf("after reopening, FinalReport = %+v, %v", again, err)
	}
}

// indexOf returns the first entry that starts with prefix, or -1.
func indexOf(list []string, prefix string) int {
	for i, s := range list {
		if strings.HasPrefix(s, prefix) {
			return i
		}
	}
	return -1
}

func TestFinalReportOnlyForFinishedRuns(t *testing.T) {
	t.Parallel()
	h := newHarness(t, testTemplate(func(tp *template.Template) { tp.Config.AutoConfirm = false }),
		scripted(plan(planned{"a", 5, nil}, planned{"b", 5, []string{"a"}}), nil), true)
	ctx := context.Background()
	if _, err := h.eng.FinalReport(ctx, "orch_nope"); !errors.Is(err, ErrUnknownRun) {
		t.Errorf("FinalReport of an unknown run = %v, want ErrUnknownRun", err)
	}
	id := h.create()
	if err := h.eng.Start(ctx, id); err != nil {
		t.Fatal(err)
	}
	h.until("confirming", func() bool { return h.status(id) == "confirming" })
	if _, err := h.eng.FinalReport(ctx, id); !errors.Is(err, ErrNotFinished) {
		t.Errorf("FinalReport while confirming = %v, want ErrNotFinished", err)
	}
	if _, err := h.st.FinalReport(ctx, id); !errors.Is(err, store.ErrNoReport) {
		t.Errorf("store has a report of an unfinished run: %v", err)
	}
	if snap, _ := h.eng.Snapshot(ctx, id); snap.FinalReport != nil {
		t.Errorf("snapshot of an unfinished run has a final report: %+v", snap.FinalReport)
	}
	if md := func() string { snap, _ := h.eng.Snapshot(ctx, id); return Report(snap) }(); strings.Contains(md, "## Final report") {
		t.Errorf("Markdown report of an unfinished run has a final report:\n%s", md)
	}

	// Cancelled while confirming: a report that says so, the proposed
	// tasks not run.
	if err := h.eng.Cancel(ctx, id); err != nil {
		t.Fatal(err)
	}
	raw, err := h.st.FinalReport(ctx, id)
	if err != nil {
		t.Fatalf("no report stored with the cancellation: %v", err)
	}
	var rep FinalReport
	if err := json.Unmarshal(raw, &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Status != "cancelled" || rep.Tasks.NotRun != 2 || rep.Tasks.Total != 2 || len(rep.Limitations) != 1 ||
		rep.Limitations[0].Kind != LimitRun || !strings.Contains(rep.Limitations[0].Text, "cancelled") {
		t.Errorf("report of a cancelled run = %+v", rep)
	}
}

func TestFinalReportOfARunInError(t *testing.T) {
	t.Parallel()
	h := newHarness(t, testTemplate(nil), scripted(nil, nil), true)
	h.host.startErr = func(opts session.StartOptions) error { return errBoom }
	id := h.create()
	ctx := context.Background()
	_ = h.eng.Start(ctx, id)
	run := h.wait(id)
	if run.Status != "error" {
		t.Fatalf("run = %s", run.Status)
	}
	rep, err := h.eng.FinalReport(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.st.FinalReport(ctx, id); err != nil {
		t.Errorf("the report of a run in error was not stored: %v", err)
	}
	if rep.Status != "error" || rep.Error != run.Error || len(rep.Limitations) != 1 ||
		!strings.Contains(rep.Limitations[0].Text, "boom") {
		t.Errorf("report = %+v", rep)
	}
}
