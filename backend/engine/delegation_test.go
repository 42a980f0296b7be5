package engine

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/baton-app/baton/backend/template"
)

func TestClarificationWaitsForTheAnswer(t *testing.T) {
	t.Parallel()
	tasks := plan(planned{"task_001", 5, nil}, planned{"task_002", 4, nil})
	worker := func(h *fakeHost, s *fakeSession, task string, reprompt bool) bool {
		if task != "task_001" {
			return false
		}
		if !reprompt {
			s.say(block("completion", map[string]any{"task_id": task, "status": "needs_input",
				"questions": []string{"Which port should the server use?"}}))
		} else {
			// The answer is the last user message.
			var last map[string]any
			_ = json.Unmarshal(s.entries[len(s.entries)-1], &last)
			content, _ := last["message"].(map[string]any)["content"].(string)
			s.say(block("completion", map[string]any{"task_id": task, "status": "success", "summary": "Used " + content}))
		}
		s.endTurn(h)
		return true
	}
	h := newHarness(t, testTemplate(nil), scripted(tasks, worker), true)
	id := h.create()
	ctx := context.Background()
	if err := h.eng.Answer(ctx, id, "task_001", "8080"); !errors.Is(err, ErrUnknownTask) {
		t.Errorf("Answer before any question: %v", err)
	}
	if err := h.eng.Start(ctx, id); err != nil {
		t.Fatal(err)
	}
	h.until("task_001 asks", func() bool { return len(h.workers(id)["task_001"].Questions) == 1 })
	w := h.workers(id)["task_001"]
	if w.Status != "running" || w.Questions[0] != "Which port should the server use?" {
		t.Errorf("waiting worker = %s %q", w.Status, w.Questions)
	}
	// The event follows the commit that stored the question, so it may
	// arrive a moment after the snapshot shows it.
	h.until("worker:question is emitted", func() bool { return h.rec.count(EventWorkerQuestion) >= 1 })
	// The run waits: task_002 completes, the run does not aggregate.
	h.until("task_002 completes", func() bool { return h.workers(id)["task_002"].Status == "completed" })
	if got := h.status(id); got != "running" {
		t.Errorf("run is %s while a worker waits for an answer", got)
	}
	if err := h.eng.Answer(ctx, id, "task_002", "x"); !errors.Is(err, ErrIllegalTransition) {
		t.Errorf("Answer to a worker without questions: %v", err)
	}
	if err := h.eng.Answer(ctx, id, "task_001", "  "); !errors.Is(err, ErrBadRequest) {
		t.Errorf("empty answer: %v", err)
	}
	if err := h.eng.Answer(ctx, id, "task_001", "Port 8080."); err != nil {
		t.Fatal(err)
	}
	run := h.wait(id)
	if run.Status != "completed" || run.TasksCompleted != 2 {
		t.Fatalf("run = %s %d/%d: %s", run.Status, run.TasksCompleted, run.TasksTotal, run.Error)
	}
	w = h.workers(id)["task_001"]
	if !strings.Contains(w.Summary, "Port 8080.") || len(w.Questions) != 0 {
		t.Errorf("task_001 summary %q, questions %q", w.Summary, w.Questions)
	}
	if n := len(workerPrompts(h.host, "task_001")); n != 1 {
		t.Errorf("task_001 started %d sessions, want 1 (the answer goes to the same session)", n)
	}
	if n := h.rec.count(EventWorkerQuestion); n != 1 {
		t.Errorf("worker:question %d times, want 1", n)
	}
}

// A conflict_detected report "prevents task completion" (seed 003): the
// task fails with its conflict, is not retried, its dependants are skipped,
// and the conflict goes to the main session (the aggregation prompt).
func TestConflictGoesToAggregation(t *testing.T) {
	t.Parallel()
	tasks := plan(planned{"task_001", 5, nil}, planned{"task_002", 4, nil}, planned{"task_003", 3, []string{"task_002"}})
	worker := func(h *fakeHost, s *fakeSession, task string, reprompt bool) bool {
		if task != "task_002" {
			return false
		}
		s.say(block("completion", map[string]any{"task_id": task, "status": "conflict", "summary": "Stopped",
			"issues": []map[string]any{{"type": "conflict", "description": "api.go: task_001 renamed Serve",
				"suggested_resolution": "keep the new name"}}}))
		s.endTurn(h)
		return true
	}
	h := newHarness(t, testTemplate(nil), scripted(tasks, worker), true)
	id := h.create()
	if err := h.eng.Start(context.Background(), id); err != nil {
		t.Fatal(err)
	}
	run := h.wait(id)
	if run.TasksCompleted != 1 || run.TasksFailed != 1 || run.TasksSkipped != 1 {
		t.Fatalf("run = %s %d completed, %d failed, %d skipped: %s", run.Status, run.TasksCompleted, run.TasksFailed,
			run.TasksSkipped, run.Error)
	}
	ws := h.workers(id)
	w := ws["task_002"]
	want := "api.go: task_001 renamed Serve (suggested: keep the new name)"
	if w.Status != "failed" || len(w.Conflicts) != 1 || w.Conflicts[0] != want || w.Error != "conflict: "+want {
		t.Errorf("task_002 = %s conflicts %q error %q", w.Status, w.Conflicts, w.Error)
	}
	if n := len(workerPrompts(h.host, "task_002")); n != 1 {
		t.Errorf("task_002 started %d sessions, want 1 (a conflict is not retried)", n)
	}
	if d := ws["task_003"]; !d.Skipped || len(workerPrompts(h.host, "task_003")) != 0 {
		t.Errorf("the dependant task_003 = %s skipped %v: %s", d.Status, d.Skipped, d.Error)
	}
	h.host.mu.Lock()
	defer h.host.mu.Unlock()
	agg := ""
	for _, s := range h.host.sends {
		if strings.Contains(s, "ASK aggregation") {
			agg = s
		}
	}
	if !strings.Contains(agg, "Conflict to resolve: "+want) {
		t.Errorf("the aggregation prompt lacks the conflict:\n%s", agg)
	}
}

// A worker of a delegation template that forgets its report is asked again
// for an attempt_completion report, the shape its prompt asked for, not for
// an orchestrator block; its corrected report completes the task.
func TestDelegationRepromptAsksForAttemptCompletion(t *testing.T) {
	t.Parallel()
	tasks := plan(planned{"task_001", 5, nil})
	var reprompt string
	worker := func(h *fakeHost, s *fakeSession, task string, again bool) bool {
		if !again {
			s.say("I wrote the specification.")
		} else {
			var last map[string]any
			_ = json.Unmarshal(s.entries[len(s.entries)-1], &last)
			reprompt, _ = last["message"].(map[string]any)["content"].(string)
			s.say(startDelim + "\n" + `{"taskId": "` + task + `", "result": "success", "summary": "Wrote the specification.", "outputArtifacts": [], "issues_encountered": []}` + "\n" + endDelim)
		}
		s.endTurn(h)
		return true
	}
	tmpl := testTemplate(func(tp *template.Template) { tp.Prompts.ResponseFormat.Dialect = "delegation" })
	h := newHarness(t, tmpl, scripted(tasks, worker), true)
	id := h.create()
	if err := h.eng.Start(context.Background(), id); err != nil {
		t.Fatal(err)
	}
	run := h.wait(id)
	if run.Status != "completed" {
		t.Fatalf("run = %s: %s", run.Status, run.Error)
	}
	h.host.mu.Lock()
	got := reprompt
	h.host.mu.Unlock()
	if !strings.Contains(got, "attempt_completion") || !strings.Contains(got, `"result": "success"`) || strings.Contains(got, `"phase"`) {
		t.Errorf("the re-prompt does not ask for an attempt_completion report:\n%s", got)
	}
	if w := h.workers(id)["task_001"]; w.Status != "completed" || w.Summary != "Wrote the specification." {
		t.Errorf("task_001 = %s %q", w.Status, w.Summary)
	}
}
