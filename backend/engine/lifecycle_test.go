package engine

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/baton-app/baton/backend/permrules"
	"github.com/baton-app/baton/backend/session"
	"github.com/baton-app/baton/backend/store"
	"github.com/baton-app/baton/backend/template"
)

func TestPermissionSurfaced(t *testing.T) {
	t.Parallel()
	tasks := plan(planned{"a", 5, nil})
	h := newHarness(t, testTemplate(nil), scripted(tasks, func(h *fakeHost, s *fakeSession, task string, _ bool) bool {
		s.tool("Bash", map[string]any{"command": "rm -rf build"})
		s.pending = []session.PermissionRequest{{RequestID: "req1", ToolName: "Bash", Input: []byte(`{"command":"rm -rf build"}`)}}
		return true
	}), true)
	id := h.create()
	if err := h.eng.Start(context.Background(), id); err != nil {
		t.Fatal(err)
	}
	h.until("worker waiting", func() bool { return h.rec.count(EventWorkerWaiting) > 0 })
	w := h.workers(id)["a"]
	if w.Waiting.ToolName != "Bash" || w.Waiting.RequestID != "req1" || w.Status != "running" || w.Tools.Bash != 1 {
		t.Errorf("worker = %+v", w)
	}
	if h.rec.count(EventWorkerWaiting) != 1 {
		t.Errorf("permission events = %d", h.rec.count(EventWorkerWaiting))
	}
	ctx := context.Background()
	if err := h.eng.RespondPermission(ctx, id, "a", "maybe", nil); !errors.Is(err, ErrBadRequest) {
		t.Errorf("bad decision = %v", err)
	}
	h.host.onRespond = func(s *fakeSession) {
		s.say(block("completion", map[string]any{"task_id": "a", "status": "success"}))
		s.endTurn(h.host)
	}
	if err := h.eng.RespondPermission(ctx, id, "a", session.AllowOnce, nil); err != nil {
		t.Fatal(err)
	}
	if run := h.wait(id); run.Status != "completed" {
		t.Errorf("run = %s", run.Status)
	}
	if w := h.workers(id)["a"]; w.Waiting != nil || w.Status != "completed" {
		t.Errorf("worker after the answer = %s waiting=%v", w.Status, w.Waiting)
	}
	h.host.mu.Lock()
	defer h.host.mu.Unlock()
	if len(h.host.responses) != 1 || h.host.responses[0] != "req1:once" {
		t.Errorf("responses = %v", h.host.responses)
	}
}

func TestStartErrorsRetryThenFail(t *testing.T) {
	t.Parallel()
	tasks := plan(planned{"a", 5, nil})
	h := newHarness(t, testTemplate(func(tp *template.Template) { tp.Config.MaxRetries = 2 }), scripted(tasks, nil), true)
	h.host.startErr = func(o session.StartOptions) error {
		if isWorkerSession(o.ID) {
			return errBoom
		}
		return nil
	}
	id := h.create()
	if err := h.eng.Start(context.Background(), id); err != nil {
		t.Fatal(err)
	}
	run := h.wait(id)
	w := h.workers(id)["a"]
	if w.Status != "failed" || !strings.Contains(w.Error, "boom") || w.RetryCount != 2 {
		t.Errorf("worker = %s retries %d: %s", w.Status, w.RetryCount, w.Error)
	}
	if run.Status != "failed" || run.TasksFailed != 1 {
		t.Errorf("run = %s failed %d", run.Status, run.TasksFailed)
	}
}

func TestBadInput(t *testing.T) {
	t.Parallel()
	h := newHarness(t, testTemplate(nil), scripted(nil, nil), true)
	ctx := context.Background()
	tests := []struct {
		name string
		req  CreateRequest
	}{
		{"empty request", CreateRequest{TemplateID: "test", Cwd: h.dir}},
		{"relative folder", CreateRequest{TemplateID: "test", Cwd: "rel", Request: "x"}},
		{"missing folder", CreateRequest{TemplateID: "test", Cwd: h.dir + "/nope", Request: "x"}},
		{"unknown template", CreateRequest{TemplateID: "nope", Cwd: h.dir, Request: "x"}},
		{"unknown variable", CreateRequest{TemplateID: "test", Cwd: h.dir, Request: "x", Variables: map[string]any{"NOPE": 1}}},
	}
	for _, tc := range tests {
		if _, err := h.eng.Create(ctx, tc.req); err == nil {
			t.Errorf("%s: Create succeeded", tc.name)
		}
	}
	if p, _ := h.st.Runs(ctx, store.HistoryQuery{}); p.Total != 0 {
		t.Errorf("refused creates stored %d runs", p.Total)
	}
	if err := h.eng.Start(ctx, "orch_nope"); !errors.Is(err, ErrUnknownRun) {
		t.Errorf("Start of unknown run = %v", err)
	}
	id := h.create()
	if err := h.eng.Confirm(ctx, id, Modifications{}); !errors.Is(err, ErrIllegalTransition) || !strings.Contains(err.Error(), "created") {
		t.Errorf("Confirm of a created run = %v", err)
	}
	if err := h.eng.RetryWorker(ctx, id, "a"); !errors.Is(err, ErrUnknownTask) && !errors.Is(err, ErrIllegalTransition) {
		t.Errorf("RetryWorker = %v", err)
	}
}

func TestAnswersOnlyAfterThePrompt(t *testing.T) {
	t.Parallel()
	early := plan(planned{"early", 5, nil})
	fresh := plan(planned{"fresh", 5, nil})
	planningReplies := 0
	h := newHarness(t, testTemplate(nil), func(fh *fakeHost, s *fakeSession, text string) {
		switch {
		case strings.Contains(text, "ASK analysis"):
			// An eager agent sends a task list with its analysis.
			s.say(block("analysis", map[string]any{"summary": "ok", "recommended_splits": 1}) + "\n" +
				block("task_list", map[string]any{"tasks": early}))
			s.endTurn(fh)
			return
		case strings.Contains(text, "ASK task_list") || (s.asked == "task_list" && !strings.Contains(text, "ASK")):
			s.asked = "task_list"
			planningReplies++
			if planningReplies == 1 {
				s.say("Let me think about the split first.")
			} else {
				s.say(block("task_list", map[string]any{"tasks": fresh}))
			}
			s.endTurn(fh)
			return
		}
		scripted(fresh, nil)(fh, s, text)
	}, true)
	id := h.create()
	if err := h.eng.Start(context.Background(), id); err != nil {
		t.Fatal(err)
	}
	run := h.wait(id)
	if run.Status != "completed" {
		t.Fatalf("run = %s: %s", run.Status, run.Error)
	}
	ts, _ := h.st.Tasks(context.Background(), id)
	if len(ts) != 1 || ts[0].ID != "fresh" {
		t.Errorf("tasks = %+v: an answer from before the planning prompt was taken", ts)
	}
	if h.rec.count(EventReprompted) != 1 {
		t.Errorf("re-prompts = %d, want 1", h.rec.count(EventReprompted))
	}
}

func TestShutdownGivesUpWithContext(t *testing.T) {
	t.Parallel()
	tasks := plan(planned{"a", 5, nil})
	block := make(chan struct{})
	h := newHarness(t, testTemplate(nil), scripted(tasks, nil), true)
	h.host.onStart = func(o session.StartOptions) {
		if isWorkerSession(o.ID) {
			<-block // the host hangs while starting a worker, ignoring its context
		}
	}
	id := h.create()
	if err := h.eng.Start(context.Background(), id); err != nil {
		t.Fatal(err)
	}
	h.until("a spawning", func() bool { return h.workers(id)["a"].Status == "spawning" })
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if err := h.eng.Shutdown(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Shutdown = %v, want DeadlineExceeded", err)
	}
	if _, err := h.eng.Create(context.Background(), CreateRequest{TemplateID: "test", Cwd: h.dir, Request: "x"}); !errors.Is(err, ErrShuttingDown) {
		t.Errorf("Create after Shutdown = %v", err)
	}
	close(block)
	ctx2, cancel2 := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel2()
	if err := h.eng.Shutdown(ctx2); err != nil {
		t.Errorf("second Shutdown = %v", err)
	}
}

func TestProgressIsCoalesced(t *testing.T) {
	t.Parallel()
	tasks := plan(planned{"a", 5, nil})
	h := newHarness(t, testTemplate(nil), scripted(tasks, func(fh *fakeHost, s *fakeSession, task string, _ bool) bool {
		for i := 0; i < 200; i++ {
			s.tool("Read", map[string]any{"file_path": fmt.Sprintf("%s/f%d.go", s.opts.Cwd, i)})
		}
		s.say(block("progress", map[string]any{"task_id": task, "status": "in_progress", "progress_percent": 40, "current_action": "Reading"}))
		return true
	}), true)
	id := h.create()
	if err := h.eng.Start(context.Background(), id); err != nil {
		t.Fatal(err)
	}
	h.until("progress seen", func() bool {
		w := h.workers(id)["a"]
		return w.Progress == 40 && w.Tools.Reads == 200
	})
	if n := h.rec.count(EventWorkerProgress); n == 0 || n > 20 {
		t.Errorf("%d progress events for 201 entries read in one batch", n)
	}
	w := h.workers(id)["a"]
	if w.CurrentAction != "Reading" {
		t.Errorf("current action = %q", w.CurrentAction)
	}
	snap, err := h.eng.Snapshot(context.Background(), id)
	if err != nil || len(snap.Workers) != 1 || snap.Workers[0].Tools.Reads != 200 {
		t.Errorf("snapshot = %+v, %v", snap.Workers, err)
	}
	_ = h.eng.Cancel(context.Background(), id)
}

func TestPhaseToggles(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name                          string
		analysis, aggregation, verify bool
		wantAnswers                   string
	}{
		{"all", true, true, true, "analysis,task_list,aggregation,verification"},
		{"no analysis", false, true, false, "task_list,aggregation"},
		{"workers only", false, false, false, "task_list"},
		{"verification without aggregation", true, false, true, "analysis,task_list,verification"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tmpl := testTemplate(func(tp *template.Template) {
				tp.Phases.Analysis.Enabled = tc.analysis
				tp.Phases.Aggregation.Enabled = tc.aggregation
				tp.Phases.Verification.Enabled = tc.verify
			})
			h := newHarness(t, tmpl, scripted(plan(planned{"a", 5, nil}), nil), false)
			id := h.create()
			if err := h.eng.Start(context.Background(), id); err != nil {
				t.Fatal(err)
			}
			run := h.wait(id)
			if run.Status != "completed" || run.TasksCompleted != 1 {
				t.Fatalf("run = %s: %s", run.Status, run.Error)
			}
			answers, _ := h.st.Answers(context.Background(), id)
			var got []string
			for _, a := range answers {
				got = append(got, a.Phase)
			}
			if strings.Join(got, ",") != tc.wantAnswers {
				t.Errorf("answers = %v, want %s", got, tc.wantAnswers)
			}
		})
	}
}

func TestReport(t *testing.T) {
	t.Parallel()
	tasks := plan(planned{"a", 5, nil}, planned{"b", 5, []string{"a"}})
	// A reported failure that stays: the report shows a failed task.
	h := newHarness(t, testTemplate(noFailedReportRetries), scripted(tasks, func(fh *fakeHost, s *fakeSession, task string, _ bool) bool {
		if task != "a" {
			return false
		}
		s.say(block("completion", map[string]any{"task_id": "a", "status": "failed", "error": "no | pipes allowed"}))
		s.endTurn(fh)
		return true
	}), true)
	id := h.create()
	if err := h.eng.Start(context.Background(), id); err != nil {
		t.Fatal(err)
	}
	h.wait(id)
	snap, err := h.eng.Snapshot(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	md := Report(snap)
	for _, want := range []string{"# Document everything", "Status: **failed**", "0 completed, 1 failed, 1 skipped of 2",
		"- Issue: None of the 2 tasks completed.",
		"## Analysis\n\nA project.", "## Result (success)", "| `a` | Do a | 5 | failed | 0 |", "| `b` | Do b | 5 | skipped |",
		"**Reason:** no | pipes allowed", "**Skipped:** skipped because a failed", "## Verification (pass)"} {
		if !strings.Contains(md, want) {
			t.Errorf("report lacks %q:\n%s", want, md)
		}
	}
}

func TestManyTasksAsyncWorkersRespectLimitsAndDependencies(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(7, 11))
	var ts []planned
	for i := 0; i < 60; i++ {
		p := planned{id: fmt.Sprintf("t%02d", i), priority: 1 + rng.IntN(10)}
		for j := 0; j < i; j++ {
			if rng.IntN(20) == 0 {
				p.deps = append(p.deps, ts[j].id)
			}
		}
		ts = append(ts, p)
	}
	var wg sync.WaitGroup
	t.Cleanup(wg.Wait)
	h := newHarness(t, testTemplate(func(tp *template.Template) { tp.Config.MaxWorkers = 5; tp.Config.MaxTasks = 100 }),
		scripted(plan(ts...), func(fh *fakeHost, s *fakeSession, task string, _ bool) bool {
			id := s.id
			delay := time.Duration(rng.IntN(3)) * time.Millisecond
			wg.Add(1)
			go func() {
				defer wg.Done()
				time.Sleep(delay)
				fh.finishTurn(id, block("completion", map[string]any{"task_id": task, "status": "success"}))
			}()
			return true
		}), true)
	id := h.create()
	if err := h.eng.Start(context.Background(), id); err != nil {
		t.Fatal(err)
	}
	run := h.wait(id)
	if run.Status != "completed" || run.TasksCompleted != 60 {
		t.Fatalf("run = %s, %d completed: %s", run.Status, run.TasksCompleted, run.Error)
	}
	h.host.mu.Lock()
	maxLive := h.host.maxLive
	h.host.mu.Unlock()
	if maxLive > 5 {
		t.Errorf("%d workers ran at once, maxWorkers is 5", maxLive)
	}
	// From the events: a task was spawned only after all its dependencies completed.
	h.rec.mu.Lock()
	defer h.rec.mu.Unlock()
	done := map[string]bool{}
	deps := map[string][]string{}
	for _, p := range ts {
		deps[p.id] = p.deps
	}
	for _, p := range h.rec.byRun[id] {
		if p.Worker == nil {
			continue
		}
		switch p.Worker.Status {
		case "completed":
			done[p.TaskID] = true
		case "spawning":
			for _, d := range deps[p.TaskID] {
				if !done[d] {
					t.Errorf("%s spawned before its dependency %s completed", p.TaskID, d)
				}
			}
		}
	}
}

func TestWorkerCommandsRefusedWithTheirState(t *testing.T) {
	t.Parallel()
	tasks := plan(planned{"a", 5, nil}, planned{"b", 5, nil})
	h := newHarness(t, testTemplate(func(tp *template.Template) { tp.Config.MaxWorkers = 2 }),
		scripted(tasks, func(fh *fakeHost, s *fakeSession, task string, _ bool) bool { return task == "b" }), true)
	id := h.create()
	ctx := context.Background()
	if err := h.eng.Start(ctx, id); err != nil {
		t.Fatal(err)
	}
	h.until("a completed, b running", func() bool {
		w := h.workers(id)
		return w["a"].Status == "completed" && w["b"].Status == "running"
	})
	tests := []struct {
		name string
		call func() error
		want string
	}{
		{"pause a completed worker", func() error { return h.eng.PauseWorker(ctx, id, "a") }, "worker a is completed"},
		{"resume a running worker", func() error { return h.eng.ResumeWorker(ctx, id, "b") }, "worker b is running"},
		{"retry a completed worker", func() error { return h.eng.RetryWorker(ctx, id, "a") }, "worker a is completed"},
		{"cancel a completed worker", func() error { return h.eng.CancelWorker(ctx, id, "a") }, "worker a is completed"},
		{"confirm a running run", func() error { return h.eng.Confirm(ctx, id, Modifications{}) }, "run is running"},
		{"start a running run", func() error { return h.eng.Start(ctx, id) }, "run is running"},
		{"resume a running run", func() error { return h.eng.Resume(ctx, id) }, "run is running"},
	}
	for _, tc := range tests {
		err := tc.call()
		if !errors.Is(err, ErrIllegalTransition) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an illegal transition naming %q", tc.name, err, tc.want)
		}
	}
	before := h.workers(id)
	if before["a"].Status != "completed" || before["b"].Status != "running" {
		t.Errorf("refused commands changed the workers: a %s, b %s", before["a"].Status, before["b"].Status)
	}
	if err := h.eng.Cancel(ctx, id); err != nil {
		t.Fatal(err)
	}
	if err := h.eng.Cancel(ctx, id); !errors.Is(err, ErrIllegalTransition) || !strings.Contains(err.Error(), "cancelled") {
		t.Errorf("second Cancel = %v", err)
	}
}

func TestMainPhaseTimeout(t *testing.T) {
	t.Parallel()
	h := newHarness(t, testTemplate(nil), func(fh *fakeHost, s *fakeSession, text string) {
		s.tool("Read", map[string]any{"file_path": s.opts.Cwd + "/README.md"}) // and then nothing
	}, true)
	id := h.create()
	if err := h.eng.Start(context.Background(), id); err != nil {
		t.Fatal(err)
	}
	h.until("analyzing", func() bool { return h.status(id) == "analyzing" })
	h.until("the analysis to time out", func() bool {
		h.clock.Add(5 * time.Minute)
		run, _ := h.st.Run(context.Background(), id)
		return run.Status == "error"
	})
	run, _ := h.st.Run(context.Background(), id)
	if !strings.Contains(run.Error, "the analysis answer did not come within 600 s") {
		t.Errorf("error = %q", run.Error)
	}
	h.host.mu.Lock()
	defer h.host.mu.Unlock()
	if len(h.host.interrupts) != 1 {
		t.Errorf("the main session was interrupted %d times", len(h.host.interrupts))
	}
}

// Three workers wait on the same prompt; AllowForRun answers all three at
// once by the rule picked, and each answer is in the permission log.
func TestAllowForRunAnswersEveryPendingPrompt(t *testing.T) {
	t.Parallel()
	tasks := plan(planned{"a", 5, nil}, planned{"b", 5, nil}, planned{"c", 5, nil})
	h := newHarness(t, testTemplate(func(tp *template.Template) { tp.Config.MaxWorkers = 3 }), scripted(tasks, func(h *fakeHost, s *fakeSession, task string, _ bool) bool {
		s.tool("Bash", map[string]any{"command": "go test ./..."})
		s.pending = []session.PermissionRequest{{RequestID: "req-" + task, ToolName: "Bash", Input: []byte(`{"command":"go test ./...","description":"` + task + `"}`)}}
		return true
	}), true)
	h.host.onRespond = func(s *fakeSession) {
		task := workerRe.FindStringSubmatch(string(s.id))[1]
		s.say(block("completion", map[string]any{"task_id": task, "status": "success"}))
		s.endTurn(h.host)
	}
	id := h.create()
	ctx := context.Background()
	if err := h.eng.Start(ctx, id); err != nil {
		t.Fatal(err)
	}
	h.until("three workers waiting", func() bool { return h.rec.count(EventWorkerWaiting) >= 3 })
	w := h.workers(id)["b"]
	if w.Waiting == nil || w.Waiting.Summary != "go test ./..." || len(w.Waiting.Suggestions) < 2 || w.Waiting.Suggestions[1].Rule != "Bash(go test:*)" ||
		w.Waiting.Key != h.workers(id)["a"].Waiting.Key {
		t.Fatalf("the prompt is not described: %+v", w.Waiting)
	}
	if err := h.eng.AllowForRun(ctx, id, "bash(go test)"); !errors.Is(err, ErrBadRequest) || !strings.Contains(err.Error(), "bash(go test)") {
		t.Errorf("a rule that does not parse: %v", err)
	}
	if err := h.eng.AllowForRun(ctx, id, "Bash(go test:*)"); err != nil {
		t.Fatal(err)
	}
	if run := h.wait(id); run.Status != "completed" {
		t.Errorf("run = %s", run.Status)
	}
	log, err := h.st.PermissionLog(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if len(log) != 3 {
		t.Fatalf("log = %+v", log)
	}
	for _, d := range log {
		if d.Decision != "allow" || d.DecidedBy != DecidedByRule || d.Rule != "Bash(go test:*)" || d.Source != "run" || d.Summary != "go test ./..." {
			t.Errorf("log row %+v", d)
		}
	}
	if rules, _ := h.st.PermissionRules(ctx, id); len(rules) != 1 || rules[0].Rule != "Bash(go test:*)" || rules[0].Deny {
		t.Errorf("stored rules = %+v", rules)
	}
	h.host.mu.Lock()
	defer h.host.mu.Unlock()
	if len(h.host.responses) != 3 {
		t.Errorf("responses = %v", h.host.responses)
	}
}

// The user's rules (the settings', asked each time) answer a prompt before
// it is shown: a deny rule wins over an allow rule.
func TestUserRulesAnswerBeforeThePromptShows(t *testing.T) {
	t.Parallel()
	tasks := plan(planned{"a", 5, nil})
	h := newHarness(t, testTemplate(nil), scripted(tasks, func(h *fakeHost, s *fakeSession, task string, _ bool) bool {
		s.tool("Bash", map[string]any{"command": "rm -rf build"})
		s.pending = []session.PermissionRequest{{RequestID: "req1", ToolName: "Bash", Input: []byte(`{"command":"rm -rf build"}`)}}
		return true
	}), true)
	h.eng.userRules = func() permrules.Lists { return permrules.Lists{Allow: []string{"Bash"}, Deny: []string{"Bash(rm:*)"}} }
	h.host.onRespond = func(s *fakeSession) {
		s.say(block("completion", map[string]any{"task_id": "a", "status": "success"}))
		s.endTurn(h.host)
	}
	id := h.create()
	if err := h.eng.Start(context.Background(), id); err != nil {
		t.Fatal(err)
	}
	if run := h.wait(id); run.Status != "completed" {
		t.Errorf("run = %s", run.Status)
	}
	if n := h.rec.count(EventWorkerWaiting); n != 0 {
		t.Errorf("the prompt was shown (%d worker:permission events)", n)
	}
	log, _ := h.st.PermissionLog(context.Background(), id)
	if len(log) != 1 || log[0].Decision != "deny" || log[0].Rule != "Bash(rm:*)" || log[0].Source != "settings" || log[0].TaskID != "a" {
		t.Errorf("log = %+v", log)
	}
	h.host.mu.Lock()
	defer h.host.mu.Unlock()
	if len(h.host.responses) != 1 || h.host.responses[0] != "req1:deny" {
		t.Errorf("responses = %v", h.host.responses)
	}
}

// The main session's prompts are answered by the rules too, before the
// user sees them: the template's allow rule lets ls run, the user's deny
// rule refuses rm, and both answers are in the permission log without a
// task (the main session's).
func TestMainSessionPromptsAnsweredByRules(t *testing.T) {
	t.Parallel()
	tasks := plan(planned{"a", 5, nil})
	worker := scripted(tasks, nil)
	agent := func(h *fakeHost, s *fakeSession, text string) {
		if m := askRe.FindStringSubmatch(text); m != nil && m[1] == "analysis" && !strings.Contains(string(s.id), "_worker_") {
			s.asked = "analysis"
			s.tool("Bash", map[string]any{"command": "ls -la"})
			s.tool("Bash", map[string]any{"command": "rm -rf build"})
			s.pending = []session.PermissionRequest{
				{RequestID: "m1", ToolName: "Bash", Input: []byte(`{"command":"ls -la"}`)},
				{RequestID: "m2", ToolName: "Bash", Input: []byte(`{"command":"rm -rf build"}`)},
			}
			return
		}
		worker(h, s, text)
	}
	h := newHarness(t, testTemplate(func(tp *template.Template) {
		tp.Config.Permissions = &permrules.Lists{Allow: []string{"Bash(ls:*)"}}
	}), agent, true)
	h.eng.userRules = func() permrules.Lists { return permrules.Lists{Deny: []string{"Bash(rm:*)"}} }
	h.host.onRespond = func(s *fakeSession) {
		// The analysis goes on once both prompts are answered.
		if !strings.Contains(string(s.id), "_worker_") && len(s.pending) == 0 {
			s.say(block("analysis", map[string]any{"summary": "A project.", "recommended_splits": 1}))
			s.endTurn(h.host)
		}
	}
	id := h.create()
	ctx := context.Background()
	if err := h.eng.Start(ctx, id); err != nil {
		t.Fatal(err)
	}
	if run := h.wait(id); run.Status != "completed" {
		t.Errorf("run = %s", run.Status)
	}
	log, err := h.st.PermissionLog(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	want := []store.PermissionDecision{
		{Tool: "Bash", Summary: "ls -la", Decision: "allow", DecidedBy: DecidedByRule, Rule: "Bash(ls:*)", Source: "template"},
		{Tool: "Bash", Summary: "rm -rf build", Decision: "deny", DecidedBy: DecidedByRule, Rule: "Bash(rm:*)", Source: "settings"},
	}
	if len(log) != len(want) {
		t.Fatalf("log = %+v", log)
	}
	for i, d := range log {
		d.ID, d.At = 0, time.Time{}
		if d != want[i] {
			t.Errorf("log row %d = %+v, want %+v", i, d, want[i])
		}
	}
	h.host.mu.Lock()
	defer h.host.mu.Unlock()
	if got := strings.Join(h.host.responses, " "); got != "m1:once m2:deny" {
		t.Errorf("responses = %s", got)
	}
}
