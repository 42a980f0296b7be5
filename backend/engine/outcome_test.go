package engine

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/baton-app/baton/backend/template"
)

// aggregatingPartially answers every aggregation as partial with three
// conflicts left open.
func aggregatingPartially(inner agentFunc) agentFunc {
	return func(h *fakeHost, s *fakeSession, text string) {
		if !strings.Contains(text, "ASK aggregation") {
			inner(h, s, text)
			return
		}
		s.asked = "aggregation"
		s.say(block("aggregation", map[string]any{"status": "partial", "summary": "Merged what agreed.",
			"conflicts": []map[string]any{
				{"type": "conflict", "description": "README.md: a and b rewrite the intro differently", "tasks": []string{"a", "b"}},
				{"type": "conflict", "description": "docs/api.md: two versions of the API table", "tasks": []string{"b", "c"}},
				{"type": "overlap", "description": "docs/x.md written twice", "files": []string{"docs/x.md"}},
			}}))
		s.endTurn(h)
	}
}

// The three runs of the issue that used to end "completed": each now says
// what is open, in its status, its issues and its final report.
func TestOutcomesAreHonest(t *testing.T) {
	t.Parallel()
	three := plan(planned{"a", 5, nil}, planned{"b", 5, nil}, planned{"c", 5, nil})
	failing := func(h *fakeHost, s *fakeSession, task string, _ bool) bool {
		s.say(block("completion", map[string]any{"task_id": task, "status": "failed", "error": "cannot build " + task}))
		s.endTurn(h)
		return true
	}
	for _, tc := range []struct {
		name   string
		agent  agentFunc
		tune   func(*template.Template)
		status string
		issues []string
	}{
		{name: "partial aggregation with three open conflicts", agent: aggregatingPartially(scripted(three, nil)),
			status: "completed_with_issues",
			issues: []string{"The aggregation is partial: Merged what agreed.", "3 conflicts are still open: README.md: a and b rewrite"}},
		{name: "verification still fails after its last round", agent: verifying(scripted(three, nil), 10),
			tune:   func(tp *template.Template) { tp.Phases.Verification.MaxRemediationRounds = 1 },
			status: "completed_with_issues",
			issues: []string{"The verification still fails after 1 remediation round (1 issue open: docs/task_001.md lacks an example): Not yet."}},
		{name: "no task done", agent: scripted(three, failing), tune: noFailedReportRetries, status: "failed",
			issues: []string{"None of the 3 tasks completed.", "3 of 3 tasks failed: a, b, c."}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t, testTemplate(tc.tune), tc.agent, true)
			id := h.create()
			ctx := context.Background()
			if err := h.eng.Start(ctx, id); err != nil {
				t.Fatal(err)
			}
			run := h.wait(id)
			if run.Status != tc.status {
				t.Fatalf("run = %s (issues %q), want %s", run.Status, run.Issues, tc.status)
			}
			joined := strings.Join(run.Issues, "\n")
			for _, want := range tc.issues {
				if !strings.Contains(joined, want) {
					t.Errorf("issues lack %q:\n%s", want, joined)
				}
			}
			stored, err := h.st.Run(ctx, id)
			if err != nil || stored.Status != tc.status || strings.Join(stored.Issues, "\n") != joined {
				t.Errorf("stored run = %s %q, %v", stored.Status, stored.Issues, err)
			}
			raw, err := h.st.FinalReport(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			var rep FinalReport
			if err := json.Unmarshal(raw, &rep); err != nil {
				t.Fatal(err)
			}
			if rep.Status != tc.status || strings.Join(rep.Issues, "\n") != joined {
				t.Errorf("final report = %s %q", rep.Status, rep.Issues)
			}
			snap, err := h.eng.Snapshot(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			md := Report(snap)
			if !strings.Contains(md, "Status: **"+OutcomeLabel(tc.status)+"**") || !strings.Contains(md, "- Issue: "+run.Issues[0]) {
				t.Errorf("the Markdown report hides the outcome:\n%s", md)
			}
		})
	}
}

// A clean run is completed, with no issues.
func TestCleanRunIsCompleted(t *testing.T) {
	t.Parallel()
	h := newHarness(t, testTemplate(nil), scripted(plan(planned{"a", 5, nil}, planned{"b", 5, nil}), nil), true)
	id := h.create()
	if err := h.eng.Start(context.Background(), id); err != nil {
		t.Fatal(err)
	}
	run := h.wait(id)
	if run.Status != "completed" || len(run.Issues) != 0 {
		t.Fatalf("run = %s, issues %q", run.Status, run.Issues)
	}
}
