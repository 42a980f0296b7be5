package engine

import (
	"context"
	"errors"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/baton-app/baton/backend/session"
	"github.com/baton-app/baton/backend/template"
)

var reviewRe = regexp.MustCompile(`ASK review (\S+)`)

// reviewing wraps the scripted agent with a reviewer: decide returns the
// decision and reason for the n-th review (from 1) of a task.
func reviewing(inner agentFunc, decide func(task string, n int, prompt string) (string, string)) agentFunc {
	var mu sync.Mutex
	count := map[string]int{}
	return func(h *fakeHost, s *fakeSession, text string) {
		m := reviewRe.FindStringSubmatch(text)
		if m == nil {
			inner(h, s, text)
			return
		}
		mu.Lock()
		count[m[1]]++
		n := count[m[1]]
		mu.Unlock()
		decision, reason := decide(m[1], n, text)
		data := map[string]any{"task_id": m[1], "decision": decision, "reason": reason}
		if decision == "rejected" {
			data["required_changes"] = []string{"fix " + m[1]}
		}
		s.say(block("review", data))
		s.endTurn(h)
	}
}

func reviewTemplate(reviewer string, build bool) template.Template {
	return testTemplate(func(t *template.Template) {
		t.Phases.Review = template.ReviewGate{Enabled: true, Reviewer: reviewer, RequireBuildSuccess: build}
		t.Prompts.Review = template.Prompt{User: "ASK review {TASK_ID}\n{COMPLETION_REPORT}"}
	})
}

// workerPrompts returns the first message of every worker session of task.
func workerPrompts(h *fakeHost, task string) []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []string
	for _, s := range h.starts {
		if m := workerRe.FindStringSubmatch(string(s.ID)); m != nil && m[1] == task {
			out = append(out, s.Message)
		}
	}
	return out
}

func TestReviewByOrchestratorRejectsThenApproves(t *testing.T) {
	t.Parallel()
	tasks := plan(planned{"task_001", 5, nil}, planned{"task_002", 4, []string{"task_001"}})
	var mu sync.Mutex
	var reports []string
	agent := reviewing(scripted(tasks, nil), func(task string, n int, prompt string) (string, string) {
		mu.Lock()
		reports = append(reports, prompt)
		mu.Unlock()
		if task == "task_001" && n == 1 {
			return "rejected", "the docs lack examples"
		}
		return "approved", "looks good"
	})
	h := newHarness(t, reviewTemplate("orchestrator", false), agent, true)
	id := h.create()
	if err := h.eng.Start(context.Background(), id); err != nil {
		t.Fatal(err)
	}
	run := h.wait(id)
	if run.Status != "completed" || run.TasksCompleted != 2 {
		t.Fatalf("run = %s %d/%d: %s %s", run.Status, run.TasksCompleted, run.TasksTotal, run.Message, run.Error)
	}
	prompts := workerPrompts(h.host, "task_001")
	if len(prompts) != 2 {
		t.Fatalf("task_001 started %d times, want 2 (rejected once)", len(prompts))
	}
	if strings.Contains(prompts[0], "rejected") || !strings.Contains(prompts[1], "the docs lack examples") ||
		!strings.Contains(prompts[1], "- fix task_001") {
		t.Errorf("the retry prompt lacks the reviewer's reason and changes:\n%s", prompts[1])
	}
	if n := len(workerPrompts(h.host, "task_002")); n != 1 {
		t.Errorf("task_002 started %d times, want 1", n)
	}
	mu.Lock()
	if len(reports) != 3 || !strings.Contains(reports[0], `"summary":"Did task_001"`) {
		t.Errorf("review prompts = %d, first %q", len(reports), reports)
	}
	mu.Unlock()
	if got := h.rec.count(EventWorkerRejected); got != 1 {
		t.Errorf("worker:rejected %d times, want 1", got)
	}
	if got := h.rec.count(EventWorkerAwaitingReview); got != 3 {
		t.Errorf("worker:awaitingReview %d times, want 3", got)
	}
	w := h.workers(id)["task_001"]
	if w.Status != "completed" || w.Error != "" || w.RetryCount != 1 {
		t.Errorf("task_001 = %s %q retries %d", w.Status, w.Error, w.RetryCount)
	}
	answers, _ := h.st.Answers(context.Background(), id)
	n := 0
	for _, a := range answers {
		if a.Phase == "review" {
			n++
		}
	}
	if n != 3 {
		t.Errorf("%d review answers stored, want 3", n)
	}
}

func TestReviewRejectedTooOftenFails(t *testing.T) {
	t.Parallel()
	tasks := plan(planned{"task_001", 5, nil}, planned{"task_002", 4, []string{"task_001"}})
	agent := reviewing(scripted(tasks, nil), func(task string, n int, prompt string) (string, string) {
		return "rejected", "still wrong"
	})
	h := newHarness(t, reviewTemplate("orchestrator", false), agent, false)
	id := h.create()
	if err := h.eng.Start(context.Background(), id); err != nil {
		t.Fatal(err)
	}
	run := h.wait(id)
	ws := h.workers(id)
	if ws["task_001"].Status != "failed" || !strings.Contains(ws["task_001"].Error, "rejected 3 times") {
		t.Errorf("task_001 = %s %q", ws["task_001"].Status, ws["task_001"].Error)
	}
	if !ws["task_002"].Skipped {
		t.Errorf("task_002 not skipped: %+v", ws["task_002"])
	}
	if got := len(workerPrompts(h.host, "task_001")); got != 3 {
		t.Errorf("task_001 started %d times, want 1 + maxRetries (2)", got)
	}
	if run.Status != "failed" || run.TasksFailed != 1 {
		t.Errorf("run = %s failed %d", run.Status, run.TasksFailed)
	}
}

func TestReviewByUser(t *testing.T) {
	t.Parallel()
	tasks := plan(planned{"task_001", 5, nil})
	// The second attempt works until the test ends its turn.
	worker := func(h *fakeHost, s *fakeSession, task string, reprompt bool) bool {
		if !strings.Contains(s.opts.Message, "rejected") {
			return false
		}
		s.tool("Read", map[string]any{"file_path": s.opts.Cwd + "/CHANGELOG.md"})
		return true
	}
	agent := reviewing(scripted(tasks, worker), func(task string, n int, prompt string) (string, string) {
		t.Errorf("the main session was asked to review %s although the user reviews", task)
		return "approved", ""
	})
	h := newHarness(t, reviewTemplate(ReviewerUser, false), agent, true)
	id := h.create()
	ctx := context.Background()
	if err := h.eng.Start(ctx, id); err != nil {
		t.Fatal(err)
	}
	awaiting := func() bool { return h.workers(id)["task_001"].Status == "awaiting_review" }
	h.until("task_001 awaiting review", awaiting)
	if err := h.eng.Review(ctx, id, "task_001", false, " "); !errors.Is(err, ErrBadRequest) {
		t.Errorf("rejection without a reason: %v", err)
	}
	if err := h.eng.Review(ctx, id, "task_009", true, ""); !errors.Is(err, ErrUnknownTask) {
		t.Errorf("review of an unknown task: %v", err)
	}
	if err := h.eng.Review(ctx, id, "task_001", false, "add a changelog entry"); err != nil {
		t.Fatal(err)
	}
	h.until("task_001 running again", func() bool {
		return len(workerPrompts(h.host, "task_001")) == 2 && h.workers(id)["task_001"].Status == "running"
	})
	if err := h.eng.Review(ctx, id, "task_001", true, ""); !errors.Is(err, ErrIllegalTransition) || !strings.Contains(err.Error(), "running") {
		t.Errorf("decision on a running task: %v", err)
	}
	w := h.workers(id)["task_001"]
	h.host.finishTurn(session.ID(w.SessionID), block("completion", map[string]any{"task_id": "task_001", "status": "success", "summary": "Added it"}))
	if p := workerPrompts(h.host, "task_001")[1]; !strings.Contains(p, "add a changelog entry") || !strings.Contains(p, "the user") {
		t.Errorf("retry prompt lacks the user's reason:\n%s", p)
	}
	h.until("task_001 awaiting review again", awaiting)
	if got := h.status(id); got != "running" {
		t.Errorf("run is %s while a task awaits review", got)
	}
	if err := h.eng.Review(ctx, id, "task_001", true, "fine"); err != nil {
		t.Fatal(err)
	}
	run := h.wait(id)
	if run.Status != "completed" || run.TasksCompleted != 1 {
		t.Fatalf("run = %s %d/%d: %s", run.Status, run.TasksCompleted, run.TasksTotal, run.Error)
	}
}

func TestReviewRequireBuildSuccess(t *testing.T) {
	t.Parallel()
	tasks := plan(planned{"task_001", 5, nil})
	var mu sync.Mutex
	reviewed := 0
	worker := func(h *fakeHost, s *fakeSession, task string, reprompt bool) bool {
		status := "success"
		if !strings.Contains(s.opts.Message, "rejected") {
			status = "failed"
		}
		s.say(block("completion", map[string]any{"task_id": task, "status": "awaiting_review", "summary": "built",
			"build": map[string]any{"status": status, "command": "go build ./...", "output": "main.go:3: undefined: x"}}))
		s.endTurn(h)
		return true
	}
	agent := reviewing(scripted(tasks, worker), func(task string, n int, prompt string) (string, string) {
		mu.Lock()
		reviewed++
		mu.Unlock()
		if !strings.Contains(prompt, `"status":"success"`) {
			t.Errorf("a failed build reached the reviewer: %s", prompt)
		}
		return "approved", "ok"
	})
	h := newHarness(t, reviewTemplate("orchestrator", true), agent, true)
	id := h.create()
	if err := h.eng.Start(context.Background(), id); err != nil {
		t.Fatal(err)
	}
	run := h.wait(id)
	if run.Status != "completed" || run.TasksCompleted != 1 {
		t.Fatalf("run = %s %d/%d: %s", run.Status, run.TasksCompleted, run.TasksTotal, run.Error)
	}
	prompts := workerPrompts(h.host, "task_001")
	if len(prompts) != 2 || !strings.Contains(prompts[1], "the build failed (go build ./...): main.go:3: undefined: x") {
		t.Errorf("worker prompts = %q", prompts)
	}
	mu.Lock()
	defer mu.Unlock()
	if reviewed != 1 {
		t.Errorf("reviewer asked %d times, want 1", reviewed)
	}
}

func TestModelByComplexity(t *testing.T) {
	t.Parallel()
	tasks := plan(planned{"task_001", 5, nil}, planned{"task_002", 5, nil}, planned{"task_003", 5, nil}, planned{"task_004", 5, nil})
	for i, c := range []string{"easy", "normal", "complex", ""} {
		if c != "" {
			tasks[i]["complexity"] = c
		}
	}
	h := newHarness(t, testTemplate(func(t *template.Template) {
		t.Config.Models = template.Models{Main: "main-model", Easy: "e-model", Normal: "n-model", Complex: "c-model"}
	}), scripted(tasks, nil), true)
	id := h.create()
	if err := h.eng.Start(context.Background(), id); err != nil {
		t.Fatal(err)
	}
	if run := h.wait(id); run.Status != "completed" {
		t.Fatalf("run = %s: %s", run.Status, run.Error)
	}
	want := map[string]string{"task_001": "e-model", "task_002": "n-model", "task_003": "c-model", "task_004": "n-model"}
	h.host.mu.Lock()
	defer h.host.mu.Unlock()
	for _, s := range h.host.starts {
		m := workerRe.FindStringSubmatch(string(s.ID))
		switch {
		case m == nil && s.Model != "main-model":
			t.Errorf("main session started with model %q", s.Model)
		case m != nil && s.Model != want[m[1]]:
			t.Errorf("worker %s started with model %q, want %q", m[1], s.Model, want[m[1]])
		}
	}
}

func TestRestoreKeepsTasksAwaitingReviewAndQuestions(t *testing.T) {
	t.Parallel()
	tasks := plan(planned{"task_001", 5, nil}, planned{"task_002", 4, nil})
	worker := func(h *fakeHost, s *fakeSession, task string, reprompt bool) bool {
		if task != "task_002" {
			return false
		}
		if reprompt {
			s.say(block("completion", map[string]any{"task_id": task, "status": "success", "summary": "Answered"}))
		} else {
			s.say(block("completion", map[string]any{"task_id": task, "status": "needs_input", "questions": []string{"Which?"}}))
		}
		s.endTurn(h)
		return true
	}
	h := newHarness(t, reviewTemplate(ReviewerUser, false), scripted(tasks, worker), true)
	id := h.create()
	ctx := context.Background()
	if err := h.eng.Start(ctx, id); err != nil {
		t.Fatal(err)
	}
	h.until("task_001 awaiting review and task_002 asking", func() bool {
		ws := h.workers(id)
		return ws["task_001"].Status == "awaiting_review" && len(ws["task_002"].Questions) == 1
	})
	h.close()
	h.open()
	if n, err := h.eng.Restore(ctx); err != nil || n != 1 {
		t.Fatalf("Restore = %d, %v", n, err)
	}
	if err := h.eng.Answer(ctx, id, "task_002", "That one."); err != nil {
		t.Fatal(err)
	}
	h.until("task_002 awaiting review", func() bool { return h.workers(id)["task_002"].Status == "awaiting_review" })
	for _, task := range []string{"task_001", "task_002"} {
		if err := h.eng.Review(ctx, id, task, true, ""); err != nil {
			t.Fatal(err)
		}
	}
	run := h.wait(id)
	if run.Status != "completed" || run.TasksCompleted != 2 {
		t.Fatalf("run = %s %d/%d: %s", run.Status, run.TasksCompleted, run.TasksTotal, run.Error)
	}
	for task, n := range h.host.workerStarts() {
		if n != 1 {
			t.Errorf("task %s was started %d times", task, n)
		}
	}
}
