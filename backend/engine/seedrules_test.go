package engine

import (
	"context"
	"strings"
	"sync"
	"testing"
)

// partialWorker reports task_001 partial for its first n attempts, then
// success; it counts the attempts.
func partialWorker(n int, attempts *int, mu *sync.Mutex) func(h *fakeHost, s *fakeSession, task string, reprompt bool) bool {
	return func(h *fakeHost, s *fakeSession, task string, reprompt bool) bool {
		if task != "task_001" {
			return false
		}
		writeOutput(s.opts.Cwd, "docs/a.md", "# a\n")
		mu.Lock()
		*attempts++
		k := *attempts
		mu.Unlock()
		status, errText := "success", ""
		if k <= n {
			status, errText = "partial", "the tests of package b are not written yet"
		}
		s.say(block("completion", map[string]any{"task_id": task, "status": status, "summary": "Attempt " + string(rune('0'+k)),
			"error": errText, "output_files": []string{"docs/a.md"}}))
		s.endTurn(h)
		return true
	}
}

// Seed 004: "IF handoff.outcome == 'partial' AND iterations < 3: Re-queue
// task with additional context from failure". Two partial reports re-queue
// the task, each new session told what was left; the third attempt's
// success completes it, and its dependant runs after it.
func TestPartialRequeuesWithinTheIterationLimit(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	attempts := 0
	tasks := plan(planned{"task_001", 5, nil}, planned{"task_002", 4, []string{"task_001"}})
	h := newHarness(t, testTemplate(nil), scripted(tasks, partialWorker(2, &attempts, &mu)), true)
	id := h.create()
	if err := h.eng.Start(context.Background(), id); err != nil {
		t.Fatal(err)
	}
	run := h.wait(id)
	if run.Status != "completed" || run.TasksCompleted != 2 {
		t.Fatalf("run = %s %d/%d: %s", run.Status, run.TasksCompleted, run.TasksTotal, run.Error)
	}
	prompts := workerPrompts(h.host, "task_001")
	if len(prompts) != 3 {
		t.Fatalf("task_001 ran %d sessions, want 3 (two partial reports re-queue it)", len(prompts))
	}
	for i, p := range prompts[1:] {
		if !strings.Contains(p, "reported it partly done") ||
			!strings.Contains(p, "What was left: the tests of package b are not written yet") {
			t.Errorf("attempt %d's prompt lacks the context of the partial report:\n%s", i+2, p)
		}
	}
	w := h.workers(id)["task_001"]
	if w.Status != "completed" || w.Error != "" || w.Summary != "Attempt 3" {
		t.Errorf("task_001 = %s %q %q", w.Status, w.Error, w.Summary)
	}
	if n := h.rec.count(EventWorkerRetrying); n != 2 {
		t.Errorf("worker:retrying %d times, want 2", n)
	}
}

// The third partial report stands: the task is not run a fourth time, and
// keeps what was left as its error.
func TestPartialStopsAtTheThirdIteration(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	attempts := 0
	tasks := plan(planned{"task_001", 5, nil})
	h := newHarness(t, testTemplate(nil), scripted(tasks, partialWorker(10, &attempts, &mu)), true)
	id := h.create()
	if err := h.eng.Start(context.Background(), id); err != nil {
		t.Fatal(err)
	}
	h.wait(id)
	if n := len(workerPrompts(h.host, "task_001")); n != 3 {
		t.Fatalf("task_001 ran %d sessions, want 3", n)
	}
	w := h.workers(id)["task_001"]
	if w.Status != "completed" || !strings.Contains(w.Error, "partly done") {
		t.Errorf("task_001 = %s %q, want the third partial report to stand", w.Status, w.Error)
	}
}

// Seed 004 picks the model by complexity, and the planning prompts allow
// low/medium/high as well as easy/normal/complex: every word picks its
// model, and the model is recorded on the worker.
func TestModelByEveryComplexityWord(t *testing.T) {
	t.Parallel()
	want := map[string]string{"low": "haiku", "easy": "haiku", "medium": "sonnet", "normal": "sonnet",
		"high": "opus", "complex": "opus", "HIGH": "opus"}
	var tasks []map[string]any
	for c := range want {
		id := "task_" + strings.ToLower(c)
		if c == "HIGH" {
			id = "task_upper_high"
		}
		tk := plan(planned{id, 5, nil})[0]
		tk["complexity"] = c
		tasks = append(tasks, tk)
	}
	h := newHarness(t, testTemplate(nil), scripted(tasks, nil), true)
	id := h.create()
	if err := h.eng.Start(context.Background(), id); err != nil {
		t.Fatal(err)
	}
	run := h.wait(id)
	if run.TasksCompleted != len(want) {
		t.Fatalf("run = %s %d/%d: %s", run.Status, run.TasksCompleted, run.TasksTotal, run.Error)
	}
	h.host.mu.Lock()
	started := map[string]string{}
	for _, s := range h.host.starts {
		if m := workerRe.FindStringSubmatch(string(s.ID)); m != nil {
			started[m[1]] = s.Model
		}
	}
	h.host.mu.Unlock()
	ws := h.workers(id)
	for c, model := range want {
		task := "task_" + strings.ToLower(c)
		if c == "HIGH" {
			task = "task_upper_high"
		}
		if started[task] != model {
			t.Errorf("complexity %q started with model %q, want %q", c, started[task], model)
		}
		if ws[task].Model != model {
			t.Errorf("complexity %q: the worker records model %q, want %q", c, ws[task].Model, model)
		}
	}
}
