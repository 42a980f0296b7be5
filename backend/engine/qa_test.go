package engine

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/baton-app/baton/backend/session"
	"github.com/baton-app/baton/backend/template"
)

// verifying wraps the scripted agent with a verifier that fails the first
// fails verifications, naming task_001.
func verifying(inner agentFunc, fails int) agentFunc {
	var mu sync.Mutex
	n := 0
	return func(h *fakeHost, s *fakeSession, text string) {
		if !strings.Contains(text, "ASK verification") {
			inner(h, s, text)
			return
		}
		mu.Lock()
		n++
		fail := n <= fails
		mu.Unlock()
		s.asked = "verification"
		if fail {
			s.say(block("verification", map[string]any{"status": "fail", "summary": "Not yet.",
				"issues": []map[string]any{{"description": "docs/task_001.md lacks an example", "severity": "high",
					"task_id": "task_001", "files": []string{"docs/task_001.md"}, "suggested_fix": "add one"}}}))
		} else {
			s.say(block("verification", map[string]any{"status": "pass", "summary": "All good."}))
		}
		s.endTurn(h)
	}
}

func TestQAFailureBecomesRemediationTasks(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		fails   int
		rounds  int
		tasks   int
		message string
		// status: a verification that still fails after its last round
		// leaves the run with an issue.
		status string
	}{
		{"fixed in one round", 1, 2, 3, "All good.", "completed"},
		{"still failing after the last round", 5, 2, 4, "Verification still fails after 2 remediation rounds: docs/task_001.md lacks an example", "completed_with_issues"},
		{"no remediation allowed", 1, 0, 2, "Verification failed: docs/task_001.md lacks an example", "completed_with_issues"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tasks := plan(planned{"task_001", 5, nil}, planned{"task_002", 4, []string{"task_001"}})
			h := newHarness(t, testTemplate(func(tp *template.Template) {
				tp.Phases.Verification.MaxRemediationRounds = tc.rounds
			}), verifying(scripted(tasks, nil), tc.fails), true)
			id := h.create()
			if err := h.eng.Start(context.Background(), id); err != nil {
				t.Fatal(err)
			}
			run := h.wait(id)
			if run.Status != tc.status || run.TasksTotal != tc.tasks || run.TasksCompleted != tc.tasks {
				t.Fatalf("run = %s %d/%d: %s %s", run.Status, run.TasksCompleted, run.TasksTotal, run.Message, run.Error)
			}
			if !strings.Contains(run.Message, tc.message) {
				t.Errorf("run message = %q, want it to contain %q", run.Message, tc.message)
			}
			rounds := min(tc.fails, tc.rounds)
			if got := h.rec.count(EventRemediation); got != rounds {
				t.Errorf("orchestrator:remediation %d times, want %d", got, rounds)
			}
			if rounds == 0 {
				return
			}
			p := workerPrompts(h.host, "qa1-fix-01")
			if len(p) != 1 || !strings.Contains(p[0], "docs/task_001.md lacks an example") ||
				!strings.Contains(p[0], "Suggested fix: add one") || !strings.Contains(p[0], "It concerns task task_001") {
				t.Errorf("remediation prompt = %q", p)
			}
			snap, _ := h.eng.Snapshot(context.Background(), id)
			if last := snap.Tasks[len(snap.Tasks)-1]; !strings.HasPrefix(last.Title, "Fix: ") || last.Priority != 8 {
				t.Errorf("remediation task = %+v", last)
			}
			answers, _ := h.st.Answers(context.Background(), id)
			agg := 0
			for _, a := range answers {
				if a.Phase == "aggregation" {
					agg++
				}
			}
			if agg != rounds+1 {
				t.Errorf("%d aggregation answers, want %d", agg, rounds+1)
			}
		})
	}
}

func TestDependencyDeadlockIsExplained(t *testing.T) {
	t.Parallel()
	tasks := plan(planned{"task_001", 9, nil}, planned{"task_002", 5, []string{"task_001"}}, planned{"task_003", 1, nil})
	worker := func(h *fakeHost, s *fakeSession, task string, reprompt bool) bool {
		switch task {
		case "task_001":
			s.say(block("completion", map[string]any{"task_id": task, "status": "failed", "error": "cannot"}))
			s.endTurn(h)
			return true
		case "task_003":
			s.tool("Read", map[string]any{"file_path": "/p/x"}) // works until the test ends its turn
			return true
		}
		return false
	}
	h := newHarness(t, testTemplate(func(tp *template.Template) { tp.Config.MaxRetries = 0 }), scripted(tasks, worker), true)
	id := h.create()
	ctx := context.Background()
	if err := h.eng.Start(ctx, id); err != nil {
		t.Fatal(err)
	}
	h.until("task_002 skipped and task_003 running", func() bool {
		ws := h.workers(id)
		return ws["task_002"].Skipped && ws["task_003"].Status == "running"
	})
	// The user runs task_002 after all, although task_001 failed.
	if err := h.eng.RetryWorker(ctx, id, "task_002"); err != nil {
		t.Fatal(err)
	}
	if got := h.status(id); got != "running" {
		t.Fatalf("run is %s while task_003 runs", got)
	}
	w := h.workers(id)["task_003"]
	h.host.finishTurn(session.ID(w.SessionID), block("completion", map[string]any{"task_id": "task_003", "status": "success", "summary": "ok"}))
	run := h.wait(id)
	if run.Status != "error" || !strings.Contains(run.Error, "dependency deadlock") ||
		!strings.Contains(run.Error, "task_002 waits for task_001 (failed)") {
		t.Errorf("run = %s: %q", run.Status, run.Error)
	}
}
