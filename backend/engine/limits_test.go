package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/baton-app/baton/backend/limits"
	"github.com/baton-app/baton/backend/template"
)

// limitError appends what the CLI writes when a request fails on a limit:
// its synthetic assistant entry and the error result.
func (s *fakeSession) limitError(h *fakeHost, status int, apiErr, text string) {
	s.n++
	s.add(map[string]any{"type": "assistant", "uuid": fmt.Sprintf("a%d", len(s.entries)),
		"message": map[string]any{"id": fmt.Sprintf("m%d", s.n), "model": "<synthetic>", "role": "assistant",
			"content": []any{map[string]any{"type": "text", "text": text}},
			"usage":   map[string]any{"input_tokens": 0, "output_tokens": 0}},
		"error": "rate_limit", "is_api_error_message": true, "api_error_status": status, "api_error": apiErr})
	s.add(map[string]any{"type": "result", "subtype": "success", "is_error": true, "api_error_status": status,
		"api_error": apiErr, "result": text, "total_cost_usd": 0, "uuid": fmt.Sprintf("r%d", len(s.entries))})
	if s.turnRunning {
		h.live--
	}
	s.turnRunning = false
}

// sentTo counts the messages sent to worker sessions of task (by Send).
func (h *fakeHost) continues() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	n := 0
	for _, s := range h.sends {
		if s == limits.Continue {
			n++
		}
	}
	return n
}

func (h *harness) runState(id string) runState {
	h.t.Helper()
	run, err := h.st.Run(context.Background(), id)
	if err != nil {
		h.t.Fatal(err)
	}
	var rs runState
	if err := json.Unmarshal(run.State, &rs); err != nil {
		h.t.Fatal(err)
	}
	return rs
}

func (h *harness) start(id string) {
	h.t.Helper()
	if err := h.eng.Start(context.Background(), id); err != nil {
		h.t.Fatal(err)
	}
}

// message is the message of the run's last stored event name.
func (h *harness) message(runID, name string) string {
	h.t.Helper()
	evs, err := h.st.Events(context.Background(), runID, 0, 100000)
	if err != nil {
		h.t.Fatal(err)
	}
	for i := len(evs) - 1; i >= 0; i-- {
		if evs[i].Name == name {
			var p Payload
			_ = json.Unmarshal(evs[i].Payload, &p)
			return p.Message
		}
	}
	return ""
}

// settle lets the run's loop take a few polls.
func settle() { time.Sleep(60 * time.Millisecond) }

// A worker that hits a limit waits until the reset time and goes on in the
// same session: no retry used, nothing redone, nothing new started while
// the run waits.
func TestLimitWaitsAndResumes(t *testing.T) {
	for _, c := range []struct {
		name   string
		status int
		apiErr string
		text   string
		wait   time.Duration // from the harness clock's 06:00 UTC
		kind   limits.Kind
	}{
		{"usage limit", 429, "usage_limit_reached", "You've hit your 5-hour limit · resets 4pm (UTC)", 10 * time.Hour, limits.Usage},
		{"429 retry-after", 429, "", "API Error: 429 rate_limit_error · retry-after: 120", 2 * time.Minute, limits.Rate},
		{"529 backoff", 529, "", "API Error: 529 Overloaded. This is a server-side issue, usually temporary", limits.BackoffBase, limits.Overload},
	} {
		t.Run(c.name, func(t *testing.T) {
			tasks := plan(planned{"a", 1, nil}, planned{"b", 1, nil}, planned{"c", 1, []string{"a"}})
			hit := 0
			agent := scripted(tasks, func(h *fakeHost, s *fakeSession, task string, reprompt bool) bool {
				if task == "a" && !reprompt && hit == 0 {
					hit++
					s.limitError(h, c.status, c.apiErr, c.text)
					return true
				}
				return false
			})
			h := newHarness(t, testTemplate(nil), agent, true)
			h.eng.jitter = func() float64 { return 1 }
			id := h.create()
			h.start(id)
			h.until("the limit is waited for", func() bool { return h.rec.count(EventLimitWaiting) == 1 })
			start := h.clock.Now()
			rs := h.runState(id)
			want := time.Date(2026, 11, 22, 6, 0, 0, 0, time.UTC).Add(c.wait)
			if rs.Limits.WaitUntil == nil || !rs.Limits.WaitUntil.Equal(want) || rs.Limits.WaitKind != c.kind {
				t.Fatalf("stored wait %v %s, want %v %s", rs.Limits.WaitUntil, rs.Limits.WaitKind, want, c.kind)
			}
			if m := h.message(id, EventLimitWaiting); !strings.Contains(m, "workers at once lowered to 1") {
				t.Errorf("limit event %q: the worker count (2) is not halved", m)
			}
			run, _ := h.st.Run(context.Background(), id)
			if !strings.HasPrefix(run.Message, "waiting for the limit, resumes at "+want.Local().Format("15:04")) {
				t.Errorf("run message %q", run.Message)
			}
			if w := h.workers(id)["a"]; !strings.HasPrefix(w.CurrentAction, "waiting for the limit") || w.Status != "running" {
				t.Errorf("worker a: %s %q", w.Status, w.CurrentAction)
			}
			// Just before the reset: still waiting, and c (ready once a is
			// done) is not started, nor is anything else.
			h.clock.Add(want.Sub(start) - time.Second)
			settle()
			if n := h.host.continues(); n != 0 {
				t.Fatalf("resumed %d times before the reset", n)
			}
			h.clock.Add(time.Second)
			h.until("the worker is resumed", func() bool { return h.host.continues() == 1 })
			run = h.wait(id)
			if run.Status != "completed" || run.TasksCompleted != 3 || run.TasksFailed != 0 {
				t.Fatalf("run %s: %d completed, %d failed", run.Status, run.TasksCompleted, run.TasksFailed)
			}
			if starts := h.host.workerStarts(); starts["a"] != 1 || starts["b"] != 1 || starts["c"] != 1 {
				t.Errorf("worker starts %v: a task was started twice", starts)
			}
			ws := h.workers(id)
			if ws["a"].RetryCount != 0 {
				t.Errorf("the limit used a retry: %d", ws["a"].RetryCount)
			}
			if h.rec.count(EventWorkerRetrying) != 0 || h.rec.count(EventWorkerReprompted) != 0 {
				t.Error("a limit was retried or re-prompted")
			}
			if h.rec.count(EventLimitResumed) != 1 {
				t.Errorf("%d limitResumed events", h.rec.count(EventLimitResumed))
			}
			if rs := h.runState(id); rs.Limits.WaitUntil != nil || rs.Limits.Cap != 0 {
				t.Errorf("after the run: wait %v, cap %d", rs.Limits.WaitUntil, rs.Limits.Cap)
			}
		})
	}
}

// The worker count is halved at a limit and raised by one after each
// completed task; a waiting worker resumes only when a place is free.
func TestLimitLowersAndRaisesWorkers(t *testing.T) {
	tasks := plan(planned{"a", 1, nil}, planned{"b", 1, nil}, planned{"c", 1, nil}, planned{"d", 1, nil},
		planned{"e", 1, []string{"b"}}, planned{"f", 1, []string{"b"}})
	hit := false
	agent := scripted(tasks, func(h *fakeHost, s *fakeSession, task string, reprompt bool) bool {
		switch {
		case task == "a" && !reprompt && !hit:
			hit = true
			s.limitError(h, 429, "", "API Error: Request rejected (429) · retry-after: 60")
			return true
		case !reprompt && (task == "b" || task == "c" || task == "d"):
			return true // slow: the test ends their turns
		}
		return false
	})
	h := newHarness(t, testTemplate(func(t *template.Template) { t.Config.MaxWorkers = 4 }), agent, true)
	id := h.create()
	h.start(id)
	h.until("the limit is waited for", func() bool { return h.rec.count(EventLimitWaiting) == 1 })
	if rs := h.runState(id); rs.Limits.Cap != 2 {
		t.Fatalf("cap %d after a limit with maxWorkers 4, want 2", rs.Limits.Cap)
	}
	h.clock.Add(time.Minute)
	h.until("the wait ends", func() bool { return h.rec.count(EventLimitResumed) == 1 })
	settle()
	// b, c, d run: three of the two places. a waits for a free place.
	if n := h.host.continues(); n != 0 {
		t.Fatalf("a resumed with no free place (%d)", n)
	}
	finish := func(task string) {
		id, _ := WorkerSessionID(id, task)
		h.host.finishTurn(id, block("completion", map[string]any{"task_id": task, "status": "success", "summary": "Did " + task}))
	}
	finish("b") // cap 3, busy a(waiting)+c+d: a goes on; e and f wait for a place
	h.until("a resumes once b is done", func() bool { return h.host.continues() == 1 })
	h.until("a completes", func() bool { return h.workers(id)["a"].Status == "completed" })
	// a and b done: cap 4, so e and f start beside c and d.
	h.until("e and f start", func() bool { s := h.host.workerStarts(); return s["e"] == 1 && s["f"] == 1 })
	if rs := h.runState(id); rs.Limits.Cap != 0 {
		t.Errorf("cap %d after two successes, want none (back at maxWorkers)", rs.Limits.Cap)
	}
	finish("c")
	finish("d")
	run := h.wait(id)
	if run.Status != "completed" || run.TasksCompleted != 6 {
		t.Fatalf("run %s, %d completed", run.Status, run.TasksCompleted)
	}
	for task, n := range h.host.workerStarts() {
		if n != 1 {
			t.Errorf("task %s started %d times", task, n)
		}
	}
	if h.host.maxLive > 4 {
		t.Errorf("%d workers at once, maxWorkers 4", h.host.maxLive)
	}
}

// A run that waits for a limit is stored so: a Baton restarted meanwhile
// goes on waiting and resumes at the same time in the same session.
func TestLimitWaitSurvivesRestart(t *testing.T) {
	tasks := plan(planned{"a", 1, nil}, planned{"b", 1, nil})
	hit := false
	agent := scripted(tasks, func(h *fakeHost, s *fakeSession, task string, reprompt bool) bool {
		if task == "a" && !reprompt && !hit {
			hit = true
			s.limitError(h, 429, "usage_limit_reached", "You've hit your 5-hour limit · resets 9am (UTC)")
			return true
		}
		return false
	})
	h := newHarness(t, testTemplate(nil), agent, true)
	id := h.create()
	h.start(id)
	h.until("the limit is waited for", func() bool { return h.rec.count(EventLimitWaiting) == 1 })
	h.until("b completes", func() bool { return h.workers(id)["b"].Status == "completed" })
	h.close()
	h.open()
	if n, err := h.eng.Restore(context.Background()); err != nil || n != 1 {
		t.Fatalf("Restore: %d %v", n, err)
	}
	settle()
	if n := h.host.continues(); n != 0 {
		t.Fatalf("resumed at the restart, before the reset (%d)", n)
	}
	if rs := h.runState(id); rs.Limits.WaitUntil == nil || !rs.Limits.WaitUntil.Equal(time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)) {
		t.Fatalf("wait after the restart: %v", rs.Limits.WaitUntil)
	}
	h.clock.Add(3 * time.Hour)
	run := h.wait(id)
	if run.Status != "completed" || run.TasksCompleted != 2 {
		t.Fatalf("run %s, %d completed", run.Status, run.TasksCompleted)
	}
	if h.host.continues() != 1 {
		t.Errorf("%d continue messages", h.host.continues())
	}
	if s := h.host.workerStarts(); s["a"] != 1 || s["b"] != 1 {
		t.Errorf("starts %v", s)
	}
	// The final report and the Markdown export give the cost per run and
	// per task, and the wait.
	snap, err := h.eng.Snapshot(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	md := Report(snap)
	for _, want := range []string{"- Cost: $0.0600 (", "limit waits: 1", "Tokens in/out | Cost |", "| $0.0100 |"} {
		if !strings.Contains(md, want) {
			t.Errorf("the export lacks %q:\n%s", want, md)
		}
	}
}

// With the automatic resume off, the run waits past the reset for
// ResumeAfterLimit.
func TestLimitManualResume(t *testing.T) {
	tasks := plan(planned{"a", 1, nil})
	hit := false
	agent := scripted(tasks, func(h *fakeHost, s *fakeSession, task string, reprompt bool) bool {
		if task == "a" && !reprompt && !hit {
			hit = true
			s.limitError(h, 529, "", "API Error: 529 Overloaded")
			return true
		}
		return false
	})
	h := newHarness(t, testTemplate(nil), agent, true)
	h.close()
	h.autoResume = func() bool { return false }
	h.open()
	id := h.create()
	h.start(id)
	h.until("the limit is waited for", func() bool { return h.rec.count(EventLimitWaiting) == 1 })
	if err := h.eng.RaiseBudget(context.Background(), id, template.Budget{MaxCostUSD: -1}); err == nil {
		t.Error("a negative budget was taken")
	}
	h.clock.Add(time.Hour)
	h.until("the wait is due", func() bool { return h.rec.count(EventLimitDue) == 1 })
	settle()
	if h.host.continues() != 0 {
		t.Fatal("resumed by itself with the automatic resume off")
	}
	if err := h.eng.ResumeAfterLimit(context.Background(), id); err != nil {
		t.Fatal(err)
	}
	if run := h.wait(id); run.Status != "completed" {
		t.Fatalf("run %s", run.Status)
	}
	if err := h.eng.ResumeAfterLimit(context.Background(), id); err == nil {
		t.Error("ResumeAfterLimit on a finished run did not fail")
	}
}

// A run that crosses its budget warns at 80 %, pauses at the cap (a running
// worker finishes its turn and waits in its session, nothing new starts)
// and finishes once the budget is raised, with no task lost or done twice.
func TestBudgetPausesAndResumes(t *testing.T) {
	tasks := plan(planned{"a", 1, nil}, planned{"b", 1, nil}, planned{"c", 2, []string{"a"}})
	agent := scripted(tasks, func(h *fakeHost, s *fakeSession, task string, reprompt bool) bool {
		return task == "b" && !reprompt // slow: the test ends its turn
	})
	h := newHarness(t, testTemplate(nil), agent, true)
	// Each turn costs $0.01: analysis and planning $0.02 (80 % of $0.025),
	// then a's turn crosses the cap while b still runs.
	run, err := h.eng.Create(context.Background(), CreateRequest{TemplateID: "test", Cwd: h.dir, Request: "Document everything",
		Overrides: &Overrides{Budget: &template.Budget{MaxCostUSD: 0.025}}})
	if err != nil {
		t.Fatal(err)
	}
	id := run.ID
	h.start(id)
	// The events are emitted after the commit that stored the pause.
	h.until("the budget pauses the run", func() bool { return h.status(id) == "paused" && h.rec.count(EventBudgetReached) > 0 })
	if h.rec.count(EventBudgetWarning) != 1 || h.rec.count(EventBudgetReached) != 1 {
		t.Fatalf("%d warnings, %d budget reached", h.rec.count(EventBudgetWarning), h.rec.count(EventBudgetReached))
	}
	if m := h.message(id, EventBudgetWarning); !strings.Contains(m, "of $0.03") && !strings.Contains(m, "of $0.02") {
		t.Errorf("warning %q", m)
	}
	bsess, _ := WorkerSessionID(id, "b")
	h.until("b runs", func() bool { return h.workers(id)["b"].Status == "running" })
	h.host.mu.Lock()
	sent := len(h.host.sends)
	h.host.mu.Unlock()
	h.host.finishTurn(bsess, "I am still reading the files.")
	h.until("b waits for the budget", func() bool { return h.workers(id)["b"].CurrentAction == "waiting for the budget to be raised" })
	settle()
	if s := h.host.workerStarts(); s["c"] != 0 {
		t.Fatal("c started while the budget was used up")
	}
	h.host.mu.Lock()
	later := h.host.sends[sent:]
	h.host.mu.Unlock()
	if h.rec.count(EventWorkerReprompted) != 0 || len(later) != 0 {
		t.Fatalf("b was prompted while the budget was used up: %q", later)
	}
	if err := h.eng.RaiseBudget(context.Background(), id, template.Budget{MaxCostUSD: 0.03}); err == nil {
		t.Fatal("a budget below what the run used was taken")
	}
	if err := h.eng.RaiseBudget(context.Background(), id, template.Budget{MaxCostUSD: 1}); err != nil {
		t.Fatal(err)
	}
	run = h.wait(id)
	if run.Status != "completed" || run.TasksCompleted != 3 || run.TasksFailed != 0 {
		t.Fatalf("run %s: %d completed, %d failed", run.Status, run.TasksCompleted, run.TasksFailed)
	}
	if s := h.host.workerStarts(); s["a"] != 1 || s["b"] != 1 || s["c"] != 1 {
		t.Errorf("starts %v", s)
	}
	if h.host.continues() != 1 {
		t.Errorf("b got %d continue messages, want 1", h.host.continues())
	}
	if rs := h.runState(id); rs.Limits.Budget.MaxCostUSD != 1 || rs.Limits.Budget.Paused {
		t.Errorf("stored budget %+v", rs.Limits.Budget)
	}
}

// The main session waits for a limit too, and is not re-prompted.
func TestLimitMainSession(t *testing.T) {
	tasks := plan(planned{"a", 1, nil})
	inner := scripted(tasks, nil)
	hit := false
	agent := func(h *fakeHost, s *fakeSession, text string) {
		if strings.Contains(text, "ASK analysis") && !hit {
			hit = true
			s.asked = "analysis"
			s.limitError(h, 429, "usage_limit_reached", "You've hit your 5-hour limit · resets 7am (UTC)")
			return
		}
		inner(h, s, text)
	}
	h := newHarness(t, testTemplate(nil), agent, true)
	id := h.create()
	h.start(id)
	h.until("the limit is waited for", func() bool { return h.rec.count(EventLimitWaiting) == 1 })
	// The analysis timeout (600 s) does not run while it waits.
	h.clock.Add(59 * time.Minute)
	settle()
	if h.status(id) != "analyzing" || h.rec.count(EventReprompted) != 0 {
		t.Fatalf("run %s, %d re-prompts while waiting", h.status(id), h.rec.count(EventReprompted))
	}
	h.clock.Add(time.Minute)
	run := h.wait(id)
	if run.Status != "completed" || run.TasksCompleted != 1 {
		t.Fatalf("run %s: %s", run.Status, run.Error)
	}
	if h.rec.count(EventReprompted) != 0 {
		t.Error("the main session was re-prompted for a limit")
	}
}
