package engine

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/baton-app/baton/backend/template"
)

// A report is taken only for its own task: a worker's completion, or the
// main session's review, about another task's id is refused with a
// sentence and asked again, with the task's own id in the re-prompt.

func (h *fakeHost) sent() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]string(nil), h.sends...)
}

// TestWorkerReportWithAnotherTasksIDIsAskedAgain: task_002's worker
// reports under task_001's id; Baton refuses it, asks again naming
// task_002 (never task_001 in the example), and takes the corrected one.
// task_001 is not touched by the foreign report.
func TestWorkerReportWithAnotherTasksIDIsAskedAgain(t *testing.T) {
	t.Parallel()
	tasks := plan(planned{"task_001", 5, nil}, planned{"task_002", 4, []string{"task_001"}})
	h := newHarness(t, testTemplate(nil), scripted(tasks, func(h *fakeHost, s *fakeSession, task string, reprompt bool) bool {
		if task != "task_002" {
			return false
		}
		id := "task_001"
		if reprompt {
			id = "task_002"
		}
		s.say(block("completion", map[string]any{"task_id": id, "status": "success", "summary": "Did " + id}))
		s.endTurn(h)
		return true
	}), true)
	id := h.create()
	if err := h.eng.Start(context.Background(), id); err != nil {
		t.Fatal(err)
	}
	run := h.wait(id)
	if run.Status != "completed" || run.TasksCompleted != 2 {
		t.Fatalf("run = %s %d/%d: %v", run.Status, run.TasksCompleted, run.TasksTotal, run.Issues)
	}
	var reprompt string
	for _, s := range h.host.sent() {
		if strings.Contains(s, "is about task task_001, but your task is task_002") {
			reprompt = s
		}
	}
	if reprompt == "" {
		t.Fatalf("no re-prompt named the wrong id; sent:\n%s", strings.Join(h.host.sent(), "\n---\n"))
	}
	if !strings.Contains(reprompt, `"task_id": "task_002"`) || strings.Contains(reprompt, `"task_id": "task_001"`) ||
		!strings.Contains(reprompt, `Your task's id is "task_002"`) {
		t.Errorf("the re-prompt's example does not carry the task's own id:\n%s", reprompt)
	}
	ws := h.workers(id)
	if ws["task_002"].Summary != "Did task_002" || ws["task_001"].Summary != "Did task_001" {
		t.Errorf("summaries: task_001 %q, task_002 %q", ws["task_001"].Summary, ws["task_002"].Summary)
	}
	if starts := h.host.workerStarts(); starts["task_002"] != 1 {
		t.Errorf("task_002 started %d sessions, want 1 (asked again in its own)", starts["task_002"])
	}
}

// TestWorkerThatKeepsReportingAnotherTaskFails: past the re-prompts the
// task fails with the reason, never completed under another id.
func TestWorkerThatKeepsReportingAnotherTaskFails(t *testing.T) {
	t.Parallel()
	tasks := plan(planned{"task_001", 5, nil}, planned{"task_002", 4, nil})
	h := newHarness(t, testTemplate(func(tp *template.Template) { tp.Config.MaxRetries = 1 }),
		scripted(tasks, func(h *fakeHost, s *fakeSession, task string, _ bool) bool {
			if task != "task_002" {
				return false
			}
			s.say(block("completion", map[string]any{"task_id": "task_001", "status": "success", "summary": "Did task_001"}))
			s.endTurn(h)
			return true
		}), true)
	id := h.create()
	if err := h.eng.Start(context.Background(), id); err != nil {
		t.Fatal(err)
	}
	run := h.wait(id)
	if run.Status != "completed_with_issues" || run.TasksCompleted != 1 || run.TasksFailed != 1 {
		t.Fatalf("run = %s %d completed %d failed: %v", run.Status, run.TasksCompleted, run.TasksFailed, run.Issues)
	}
	w := h.workers(id)["task_002"]
	if w.Status != "failed" || !strings.Contains(w.Error, "it is about task task_001, but your task is task_002") {
		t.Errorf("task_002 = %s: %s", w.Status, w.Error)
	}
}

// TestReviewOfAnotherTaskIsAskedAgain: the main session answers the review
// of task_001 about task_002; Baton asks again for task_001's review.
func TestReviewOfAnotherTaskIsAskedAgain(t *testing.T) {
	t.Parallel()
	tasks := plan(planned{"task_001", 5, nil})
	var mu sync.Mutex
	reviews := 0
	inner := scripted(tasks, nil)
	agent := func(h *fakeHost, s *fakeSession, text string) {
		asked := reviewRe.FindStringSubmatch(text)
		again := strings.Contains(text, "Baton could not read your last reply")
		if asked == nil && !(again && strings.Contains(text, `"review"`)) {
			inner(h, s, text)
			return
		}
		mu.Lock()
		reviews++
		n := reviews
		mu.Unlock()
		about := "task_001"
		if n == 1 {
			about = "task_002"
		}
		s.say(block("review", map[string]any{"task_id": about, "decision": "approved", "reason": "fine"}))
		s.endTurn(h)
	}
	h := newHarness(t, reviewTemplate("orchestrator", false), agent, true)
	id := h.create()
	if err := h.eng.Start(context.Background(), id); err != nil {
		t.Fatal(err)
	}
	run := h.wait(id)
	if run.Status != "completed" {
		t.Fatalf("run = %s: %v %s", run.Status, run.Issues, run.Error)
	}
	var reprompt string
	for _, s := range h.host.sent() {
		if strings.Contains(s, "the review is about task task_002, but Baton asked for the review of task task_001") {
			reprompt = s
		}
	}
	if reprompt == "" || !strings.Contains(reprompt, `"task_id": "task_001"`) {
		t.Errorf("re-prompt of the review:\n%s", reprompt)
	}
	answers, _ := h.st.Answers(context.Background(), id)
	invalid := 0
	for _, a := range answers {
		if a.Phase == "review" && a.Status == "invalid" {
			invalid++
		}
	}
	if invalid != 1 || reviews != 2 {
		t.Errorf("%d invalid review answers, %d reviews; want 1 and 2", invalid, reviews)
	}
}
