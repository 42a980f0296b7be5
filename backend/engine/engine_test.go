package engine

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/baton-app/baton/backend/session"
	"github.com/baton-app/baton/backend/store"
	"github.com/baton-app/baton/backend/template"
)

func TestHappyPath(t *testing.T) {
	t.Parallel()
	for _, push := range []bool{true, false} {
		name := "polling"
		if push {
			name = "push"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			tasks := plan(planned{"task_001", 5, nil}, planned{"task_002", 7, nil}, planned{"task_003", 3, []string{"task_001", "task_002"}})
			h := newHarness(t, testTemplate(nil), scripted(tasks, nil), push)
			id := h.create()
			if got := h.status(id); got != "created" {
				t.Fatalf("status after create = %s", got)
			}
			if err := h.eng.Start(context.Background(), id); err != nil {
				t.Fatal(err)
			}
			run := h.wait(id)
			if run.Status != "completed" || run.TasksCompleted != 3 || run.TasksFailed != 0 {
				t.Fatalf("run = %s %d/%d failed %d: %s %s", run.Status, run.TasksCompleted, run.TasksTotal, run.TasksFailed, run.Message, run.Error)
			}
			if run.InputTokens == 0 || run.OutputTokens == 0 || run.CostUSD == 0 {
				t.Errorf("totals not counted: %d in, %d out, $%f", run.InputTokens, run.OutputTokens, run.CostUSD)
			}
			ws := h.workers(id)
			w := ws["task_001"]
			if w.Tools.Reads != 1 || w.Tools.Writes != 1 || w.Tools.Search != 1 || w.Tools.Total != 3 {
				t.Errorf("tool stats = %+v", w.Tools)
			}
			if len(w.OutputFiles) != 1 || w.OutputFiles[0] != "docs/task_001.md" {
				t.Errorf("output files = %v", w.OutputFiles)
			}
			if w.InputTokens != 250 || w.OutputTokens != 25 || w.Unstructured {
				t.Errorf("worker usage = %d/%d unstructured=%v", w.InputTokens, w.OutputTokens, w.Unstructured)
			}
			answers, _ := h.st.Answers(context.Background(), id)
			var phases []string
			for _, a := range answers {
				phases = append(phases, a.Phase)
			}
			if strings.Join(phases, ",") != "analysis,task_list,aggregation,verification" {
				t.Errorf("answers stored = %v", phases)
			}
			// Priority order: task_002 (7) before task_001 (5); task_003 after both.
			if order := h.rec.spawned(id); strings.Join(order, ",") != "task_002,task_001,task_003" {
				t.Errorf("spawn order = %v", order)
			}
			starts := h.host.starts
			// Every prompt had its variables substituted.
			for _, s := range starts {
				if strings.Contains(s.Message, "{") {
					t.Errorf("unsubstituted variable in %q", s.Message)
				}
			}
			if !strings.Contains(h.host.sends[len(h.host.sends)-2], "Did task_003") {
				t.Errorf("aggregation prompt lacks the worker outputs: %q", h.host.sends[len(h.host.sends)-2])
			}
			for _, ev := range []string{EventCreated, EventStarted, EventAnalysisComplete, EventTasksReady,
				EventWorkersSpawned, EventWorkerStarted, EventWorkerCompleted, EventCompleted, EventProgress} {
				if h.rec.count(ev) == 0 {
					t.Errorf("event %s never emitted", ev)
				}
			}
			if h.rec.count(EventWorkerCompleted) != 3 {
				t.Errorf("worker:completed %d times", h.rec.count(EventWorkerCompleted))
			}
			snap, err := h.eng.Snapshot(context.Background(), id)
			if err != nil || len(snap.ParallelGroups) != 2 || len(snap.Answers) != 4 {
				t.Errorf("snapshot = %+v, %v", snap.ParallelGroups, err)
			}
			if err := h.eng.Pause(context.Background(), id); !errors.Is(err, ErrIllegalTransition) || !strings.Contains(err.Error(), "completed") {
				t.Errorf("Pause of a completed run: %v", err)
			}
		})
	}
}

func TestSchedulingNeverExceedsMaxWorkers(t *testing.T) {
	t.Parallel()
	var ts []planned
	for i := 0; i < 30; i++ {
		p := planned{id: "t" + string(rune('a'+i%26)) + string(rune('0'+i/26)), priority: 1 + i%10}
		if i >= 20 {
			p.deps = []string{ts[i-20].id}
		}
		ts = append(ts, p)
	}
	tasks := plan(ts...)
	// Workers hang until the test finishes them, so several run at once.
	var h *harness
	h = newHarness(t, testTemplate(func(tp *template.Template) { tp.Config.MaxWorkers = 3; tp.Phases.Verification.Enabled = false }),
		scripted(tasks, func(_ *fakeHost, s *fakeSession, task string, _ bool) bool { return true }), true)
	id := h.create()
	if err := h.eng.Start(context.Background(), id); err != nil {
		t.Fatal(err)
	}
	finished := map[string]bool{}
	var startOrder []string
	for len(finished) < 30 {
		h.until("a worker to be running", func() bool {
			for _, w := range h.workers(id) {
				if w.Status == "running" && !finished[w.TaskID] {
					return true
				}
			}
			return false
		})
		// Finish the running worker that started first.
		h.host.mu.Lock()
		var next session.ID
		var task string
		for _, sid := range h.host.order {
			m := workerRe.FindStringSubmatch(string(sid))
			if m != nil && !finished[m[1]] && h.host.sessions[sid].turnRunning {
				next, task = sid, m[1]
				break
			}
		}
		h.host.mu.Unlock()
		if next == "" {
			continue
		}
		finished[task] = true
		startOrder = append(startOrder, task)
		h.host.finishTurn(next, block("completion", map[string]any{"task_id": task, "status": "success"}))
	}
	run := h.wait(id)
	if run.Status != "completed" || run.TasksCompleted != 30 {
		t.Fatalf("run = %s, %d completed", run.Status, run.TasksCompleted)
	}
	if h.host.maxLive > 3 {
		t.Errorf("%d workers ran at once, maxWorkers is 3", h.host.maxLive)
	}
	if h.host.maxLive < 3 {
		t.Errorf("only %d workers ran at once; expected the pool to be used", h.host.maxLive)
	}
	// The first three started are the three highest priorities among tasks
	// without dependencies: priorities 10, 10, 9 → ids with i%10 == 9, 19, 8.
	first := h.rec.spawned(id)[:3]
	want := []string{ts[9].id, ts[19].id, ts[8].id}
	if strings.Join(first, ",") != strings.Join(want, ",") {
		t.Errorf("first started = %v, want %v (priority, then id)", first, want)
	}
	// No dependent started before its dependency finished.
	pos := map[string]int{}
	for i, id := range startOrder {
		pos[id] = i
	}
	for i := 20; i < 30; i++ {
		if pos[ts[i].id] < pos[ts[i-20].id] {
			t.Errorf("%s finished before its dependency %s", ts[i].id, ts[i-20].id)
		}
	}
}

func TestTaskListChecksKeepConfirming(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		tasks []map[string]any
		want  string
		fix   Modifications
	}{
		{"cycle", plan(planned{"a", 5, []string{"c"}}, planned{"b", 5, []string{"a"}}, planned{"c", 5, []string{"b"}}),
			"cycle: a → c → b → a", Modifications{Edit: []TaskEdit{{ID: "a", Dependencies: &[]string{}}}}},
		{"unknown dependency", plan(planned{"a", 5, []string{"zzz"}}), "a depends on zzz, which is not in the list",
			Modifications{Edit: []TaskEdit{{ID: "a", Dependencies: &[]string{}}}}},
		{"duplicate id", plan(planned{"a", 5, nil}, planned{"a", 5, nil}), "the id a is used by more than one task",
			Modifications{}},
		{"too many", plan(planned{"a", 5, nil}, planned{"b", 5, nil}, planned{"c", 5, nil}, planned{"d", 5, nil}),
			"more than the template's limit of 3", Modifications{Skip: []string{"d"}}},
		{"bad id", plan(planned{"a b", 5, nil}), "may only hold letters", Modifications{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t, testTemplate(func(tp *template.Template) { tp.Config.MaxTasks = 3 }), scripted(tc.tasks, nil), true)
			id := h.create()
			if err := h.eng.Start(context.Background(), id); err != nil {
				t.Fatal(err)
			}
			h.until("tasksInvalid", func() bool { return h.rec.count(EventTasksInvalid) > 0 })
			if h.status(id) != "confirming" {
				t.Fatalf("status = %s, want confirming", h.status(id))
			}
			run, _ := h.st.Run(context.Background(), id)
			if !strings.Contains(run.Message, tc.want) {
				t.Errorf("message = %q, want it to contain %q", run.Message, tc.want)
			}
			if h.rec.count(EventTasksInvalid) != 1 {
				t.Errorf("tasksInvalid emitted %d times", h.rec.count(EventTasksInvalid))
			}
			before, _ := h.st.Tasks(context.Background(), id)
			if tc.name == "duplicate id" {
				// The copy is kept, renamed and set aside; the user decides.
				if len(before) != 2 || before[1].ID != "a-dup2" || !before[1].Skipped {
					t.Fatalf("tasks = %+v", before)
				}
				// It is reported like a cycle until the user decides: a
				// confirmation as proposed is refused, never dropping the
				// copy silently as "skipped by the user".
				err := h.eng.Confirm(context.Background(), id, Modifications{})
				if !errors.Is(err, ErrInvalidTasks) || !strings.Contains(err.Error(), "set aside as a-dup2") {
					t.Fatalf("Confirm with the duplicate set aside = %v", err)
				}
				if err := h.eng.Confirm(context.Background(), id, Modifications{Unskip: []string{"a-dup2"}}); err != nil {
					t.Fatal(err)
				}
				if run := h.wait(id); run.Status != "completed" || run.TasksCompleted != 2 || run.TasksSkipped != 0 {
					t.Errorf("run = %s %d/%d", run.Status, run.TasksCompleted, run.TasksSkipped)
				}
				return
			}
			err := h.eng.Confirm(context.Background(), id, Modifications{})
			if !errors.Is(err, ErrInvalidTasks) {
				t.Fatalf("Confirm of a bad list = %v", err)
			}
			after, _ := h.st.Tasks(context.Background(), id)
			if len(after) != len(before) || h.status(id) != "confirming" {
				t.Errorf("a refused confirmation changed the run")
			}
			if tc.name == "too many" {
				// Skipping does not shorten the list; removing is not offered, so the
				// limit holds: the run stays in confirming.
				if err := h.eng.Confirm(context.Background(), id, tc.fix); !errors.Is(err, ErrInvalidTasks) {
					t.Errorf("Confirm with a skip = %v", err)
				}
				return
			}
			if len(tc.fix.Edit) > 0 {
				if err := h.eng.Confirm(context.Background(), id, tc.fix); err != nil {
					t.Fatalf("Confirm with the fix: %v", err)
				}
				if run := h.wait(id); run.Status != "completed" {
					t.Errorf("after the fix the run ended %s", run.Status)
				}
			}
		})
	}
}

func TestConfirmWithModifications(t *testing.T) {
	t.Parallel()
	tasks := plan(planned{"a", 5, nil}, planned{"b", 5, []string{"a"}}, planned{"c", 2, nil})
	h := newHarness(t, testTemplate(func(tp *template.Template) { tp.Config.AutoConfirm = false; tp.Config.MaxWorkers = 1 }),
		scripted(tasks, nil), true)
	id := h.create()
	if err := h.eng.Start(context.Background(), id); err != nil {
		t.Fatal(err)
	}
	h.until("confirming", func() bool { return h.status(id) == "confirming" })
	title := "Renamed"
	prio := 9
	err := h.eng.Confirm(context.Background(), id, Modifications{
		Skip: []string{"a"},
		Edit: []TaskEdit{{ID: "c", Title: &title, Priority: &prio}},
		Add:  []NewTask{{ID: "d", Title: "New", Description: "Added by the user", Priority: 10, Dependencies: []string{"c"}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	run := h.wait(id)
	// A task the user skipped is no failure: the run completed, and says
	// so.
	if run.Status != "completed" || run.TasksCompleted != 3 || run.TasksSkipped != 1 || len(run.Issues) != 0 {
		t.Fatalf("run = %s, %d completed, %d skipped, issues %v", run.Status, run.TasksCompleted, run.TasksSkipped, run.Issues)
	}
	if !strings.Contains(run.Message, "1 task skipped by you: a.") {
		t.Errorf("message = %q", run.Message)
	}
	rep, err := h.eng.FinalReport(context.Background(), id)
	if err != nil || rep.Tasks.SkippedByUser != 1 || len(rep.Skipped) != 1 || !rep.Skipped[0].ByUser || !slices.Equal(rep.Notes, []string{"1 task skipped by you: a."}) {
		t.Fatalf("report = %+v, %v", rep, err)
	}
	for _, l := range rep.Limitations {
		if l.TaskID == "a" {
			t.Errorf("a known limitation for a task the user skipped: %+v", l)
		}
	}
	got := h.host.workerStarts()
	if got["a"] != 0 || got["d"] != 1 || got["b"] != 1 {
		t.Errorf("starts = %v", got)
	}
	ts, _ := h.st.Tasks(context.Background(), id)
	if ts[2].Title != "Renamed" || ts[2].Priority != 9 || ts[3].ID != "d" {
		t.Errorf("tasks = %+v", ts)
	}
	if err := h.eng.Confirm(context.Background(), id, Modifications{}); !errors.Is(err, ErrIllegalTransition) {
		t.Errorf("second Confirm = %v", err)
	}
}

func TestRepromptThenFallbackThenFailure(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		reply       string // what the worker says every time
		wantStatus  string
		wantFlagged bool
		wantReason  string
		// wantRun: a run whose only root task failed did nothing useful.
		wantRun string
	}{
		{"keyword fallback", "I am finished. The task is complete and done.", "completed", true, "", "completed"},
		{"failure", "Hmm, let me think about colours.", "failed", false, "no valid completion report after 2 re-prompts", "failed"},
		{"broken json", startDelim + "\n{\"phase\": \"completion\", \"data\": {\"task_id\": \n" + endDelim, "failed", false, "after 2 re-prompts", "failed"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tasks := plan(planned{"a", 5, nil}, planned{"b", 5, []string{"a"}})
			h := newHarness(t, testTemplate(nil), scripted(tasks, func(h *fakeHost, s *fakeSession, task string, _ bool) bool {
				if task != "a" {
					return false
				}
				s.say(tc.reply)
				s.endTurn(h)
				return true
			}), true)
			id := h.create()
			if err := h.eng.Start(context.Background(), id); err != nil {
				t.Fatal(err)
			}
			run := h.wait(id)
			w := h.workers(id)
			if w["a"].Status != tc.wantStatus || w["a"].Unstructured != tc.wantFlagged {
				t.Fatalf("worker a = %s unstructured=%v (%s)", w["a"].Status, w["a"].Unstructured, w["a"].Error)
			}
			if !strings.Contains(w["a"].Error, tc.wantReason) {
				t.Errorf("reason = %q, want %q", w["a"].Error, tc.wantReason)
			}
			if n := h.rec.count(EventWorkerReprompted); n != 2 {
				t.Errorf("re-prompted %d times, want 2 (maxRetries)", n)
			}
			if run.Status != tc.wantRun {
				t.Errorf("run = %s (%s), want %s", run.Status, run.Error, tc.wantRun)
			}
			if tc.wantStatus == "failed" {
				if w["b"].Status != "cancelled" || !w["b"].Skipped || !strings.Contains(w["b"].Error, "a failed") {
					t.Errorf("dependent b = %+v", w["b"])
				}
				if run.TasksFailed != 1 || run.TasksSkipped != 1 || !strings.Contains(run.Message, "1 failed, 1 skipped") {
					t.Errorf("run counts: failed %d skipped %d message %q", run.TasksFailed, run.TasksSkipped, run.Message)
				}
			}
			// Every re-prompt names what was wrong and is the protocol's text.
			h.host.mu.Lock()
			n := 0
			for _, s := range h.host.sends {
				if strings.HasPrefix(s, "Baton could not read your last reply") {
					n++
				}
			}
			h.host.mu.Unlock()
			if n != 2 {
				t.Errorf("%d protocol re-prompts sent", n)
			}
		})
	}
}

func TestMainSessionRepromptThenError(t *testing.T) {
	t.Parallel()
	h := newHarness(t, testTemplate(nil), func(h *fakeHost, s *fakeSession, text string) {
		s.say("I looked around but I will not use your format.")
		s.endTurn(h)
	}, false)
	id := h.create()
	if err := h.eng.Start(context.Background(), id); err != nil {
		t.Fatal(err)
	}
	run := h.wait(id)
	if run.Status != "error" || !strings.Contains(run.Error, "analysis answer is still missing or invalid after 2 re-prompts") {
		t.Fatalf("run = %s: %q", run.Status, run.Error)
	}
	answers, _ := h.st.Answers(context.Background(), id)
	if len(answers) != 3 || answers[0].Status != "invalid" {
		t.Errorf("answers = %+v", answers)
	}
}

func TestTimeoutRetryThenFail(t *testing.T) {
	t.Parallel()
	for _, kind := range []string{"absolute", "inactivity"} {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			tasks := plan(planned{"a", 5, nil}, planned{"b", 5, []string{"a"}})
			tmpl := testTemplate(func(tp *template.Template) {
				tp.Config.MaxRetries = 1
				if kind == "absolute" {
					tp.Config.WorkerTimeout, tp.Config.InactivityTimeout = 60, 0
				} else {
					tp.Config.WorkerTimeout, tp.Config.InactivityTimeout = 0, 30
				}
			})
			// Worker a hangs: its turn never ends.
			h := newHarness(t, tmpl, scripted(tasks, func(h *fakeHost, s *fakeSession, task string, _ bool) bool {
				return task == "a"
			}), true)
			id := h.create()
			if err := h.eng.Start(context.Background(), id); err != nil {
				t.Fatal(err)
			}
			h.until("worker a running", func() bool { return h.workers(id)["a"].Status == "running" })
			// Move the clock until both attempts have timed out (the engine's
			// first read of a session may come after a single move).
			h.untilf(func() string {
				w := h.workers(id)["a"]
				return fmt.Sprintf("worker a to fail: %s, %d starts, %s", w.Status, h.host.workerStarts()["a"], w.Error)
			}, func() bool {
				h.clock.Add(20 * time.Second)
				return h.workers(id)["a"].Status == "failed"
			})
			run := h.wait(id)
			w := h.workers(id)
			if w["a"].Status != "failed" || w["a"].RetryCount != 1 {
				t.Fatalf("worker a = %s, retries %d: %s", w["a"].Status, w["a"].RetryCount, w["a"].Error)
			}
			want := "worker timeout of 60 s"
			if kind == "inactivity" {
				want = "no transcript activity for 30 s"
			}
			if !strings.Contains(w["a"].Error, want) {
				t.Errorf("reason = %q", w["a"].Error)
			}
			if h.rec.count(EventWorkerTimeout) != 2 || h.rec.count(EventWorkerRetrying) != 1 {
				t.Errorf("timeout events %d, retrying %d", h.rec.count(EventWorkerTimeout), h.rec.count(EventWorkerRetrying))
			}
			if w["b"].Status != "cancelled" || !w["b"].Skipped {
				t.Errorf("dependent b = %s", w["b"].Status)
			}
			if run.Status != "failed" || run.TasksFailed != 1 || len(run.Issues) == 0 {
				t.Errorf("run = %s failed %d, issues %q", run.Status, run.TasksFailed, run.Issues)
			}
			h.host.mu.Lock()
			interrupted := len(h.host.interrupts)
			h.host.mu.Unlock()
			if interrupted < 2 {
				t.Errorf("timed-out sessions were interrupted %d times", interrupted)
			}
		})
	}
}

func TestPauseResumeCancel(t *testing.T) {
	t.Parallel()
	tasks := plan(planned{"a", 9, nil}, planned{"b", 5, nil}, planned{"c", 1, nil})
	hold := true
	h := newHarness(t, testTemplate(func(tp *template.Template) { tp.Config.MaxWorkers = 1 }),
		scripted(tasks, func(h *fakeHost, s *fakeSession, task string, _ bool) bool { return hold }), true)
	id := h.create()
	ctx := context.Background()
	if err := h.eng.Resume(ctx, id); !errors.Is(err, ErrIllegalTransition) || !strings.Contains(err.Error(), "created") {
		t.Errorf("Resume of a created run = %v", err)
	}
	if err := h.eng.Start(ctx, id); err != nil {
		t.Fatal(err)
	}
	h.until("a running", func() bool { return h.workers(id)["a"].Status == "running" })
	if err := h.eng.Pause(ctx, id); err != nil {
		t.Fatal(err)
	}
	if err := h.eng.Pause(ctx, id); !errors.Is(err, ErrIllegalTransition) || !strings.Contains(err.Error(), "paused") {
		t.Errorf("second Pause = %v", err)
	}
	// Finishing a while paused is recorded, but b does not start.
	h.host.mu.Lock()
	h.host.mu.Unlock()
	sid, _ := WorkerSessionID(id, "a")
	h.host.finishTurn(sid, block("completion", map[string]any{"task_id": "a", "status": "success"}))
	h.until("a completed", func() bool { return h.workers(id)["a"].Status == "completed" })
	// Let a few polls pass: still nothing new starts.
	for i := 0; i < 5; i++ {
		_, _ = h.eng.Snapshot(ctx, id)
	}
	if n := h.host.workerStarts()["b"]; n != 0 {
		t.Fatalf("b started while paused")
	}
	h.host.mu.Lock()
	interrupted := len(h.host.interrupts)
	h.host.mu.Unlock()
	if interrupted != 0 {
		t.Errorf("pause interrupted %d sessions", interrupted)
	}
	if err := h.eng.Resume(ctx, id); err != nil {
		t.Fatal(err)
	}
	if h.status(id) != "running" {
		t.Errorf("resumed to %s, want running", h.status(id))
	}
	h.until("b running", func() bool { return h.workers(id)["b"].Status == "running" })
	// Single worker: pause c (pending), cancel b (running).
	if err := h.eng.PauseWorker(ctx, id, "c"); err != nil {
		t.Fatal(err)
	}
	if err := h.eng.CancelWorker(ctx, id, "b"); err != nil {
		t.Fatal(err)
	}
	if err := h.eng.CancelWorker(ctx, id, "nope"); !errors.Is(err, ErrUnknownTask) {
		t.Errorf("CancelWorker of unknown task = %v", err)
	}
	for i := 0; i < 5; i++ {
		_, _ = h.eng.Snapshot(ctx, id)
	}
	if h.host.workerStarts()["c"] != 0 || h.workers(id)["c"].Status != "paused" {
		t.Fatalf("paused pending worker c started: %s", h.workers(id)["c"].Status)
	}
	if err := h.eng.ResumeWorker(ctx, id, "c"); err != nil {
		t.Fatal(err)
	}
	h.until("c running", func() bool { return h.workers(id)["c"].Status == "running" })
	if err := h.eng.Cancel(ctx, id); err != nil {
		t.Fatal(err)
	}
	run := h.wait(id)
	if run.Status != "cancelled" {
		t.Fatalf("run = %s", run.Status)
	}
	w := h.workers(id)
	if w["c"].Status != "cancelled" || w["b"].Status != "cancelled" || w["a"].Status != "completed" {
		t.Errorf("workers = a %s b %s c %s", w["a"].Status, w["b"].Status, w["c"].Status)
	}
	h.host.mu.Lock()
	defer h.host.mu.Unlock()
	sc, _ := WorkerSessionID(id, "c")
	if !contains(h.host.interrupts, sc) || !contains(h.host.archives, sc) {
		t.Errorf("cancel did not interrupt and archive c: %v %v", h.host.interrupts, h.host.archives)
	}
}

func contains(ids []session.ID, id session.ID) bool {
	for _, x := range ids {
		if x == id {
			return true
		}
	}
	return false
}

func TestManualRetryUnskipsDependents(t *testing.T) {
	t.Parallel()
	tasks := plan(planned{"a", 5, nil}, planned{"b", 5, []string{"a"}}, planned{"c", 1, nil})
	failA := true
	h := newHarness(t, testTemplate(func(tp *template.Template) { tp.Config.MaxWorkers = 1; noFailedReportRetries(tp) }),
		scripted(tasks, func(h *fakeHost, s *fakeSession, task string, _ bool) bool {
			switch {
			case task == "a" && failA:
				s.say(block("completion", map[string]any{"task_id": "a", "status": "failed", "error": "the files are missing"}))
				s.endTurn(h)
				return true
			case task == "c":
				return true // c hangs, keeping the run in its worker phase
			}
			return false
		}), true)
	id := h.create()
	ctx := context.Background()
	if err := h.eng.Start(ctx, id); err != nil {
		t.Fatal(err)
	}
	h.until("a failed and c running", func() bool {
		w := h.workers(id)
		return w["a"].Status == "failed" && w["c"].Status == "running"
	})
	w := h.workers(id)
	if w["a"].Error != "the files are missing" || w["b"].Status != "cancelled" || !strings.Contains(w["b"].Error, "a failed") {
		t.Fatalf("a = %q, b = %s %q", w["a"].Error, w["b"].Status, w["b"].Error)
	}
	h.host.mu.Lock()
	failA = false
	h.host.mu.Unlock()
	if err := h.eng.RetryWorker(ctx, id, "a"); err != nil {
		t.Fatal(err)
	}
	if err := h.eng.RetryWorker(ctx, id, "c"); !errors.Is(err, ErrIllegalTransition) || !strings.Contains(err.Error(), "running") {
		t.Errorf("RetryWorker of a running worker = %v", err)
	}
	sc, _ := WorkerSessionID(id, "c")
	h.host.finishTurn(sc, block("completion", map[string]any{"task_id": "c", "status": "success"}))
	run := h.wait(id)
	w = h.workers(id)
	if run.Status != "completed" || w["a"].Status != "completed" || w["b"].Status != "completed" || w["a"].RetryCount != 1 {
		t.Fatalf("run %s: a %s (%d retries) b %s", run.Status, w["a"].Status, w["a"].RetryCount, w["b"].Status)
	}
	if got := h.host.workerStarts(); got["a"] != 2 || got["b"] != 1 {
		t.Errorf("starts = %v", got)
	}
}

// A task list still missing required fields after the re-prompts goes to
// the user (seed 000: "allow user to manually provide missing data"): the
// run waits in review with the problems named, a task without an id gets
// one, and the user's edit lets it start.
func TestTaskListMissingFieldsGoesToTheUser(t *testing.T) {
	t.Parallel()
	tasks := plan(planned{"a", 5, nil}, planned{"b", 5, nil})
	delete(tasks[0], "id")
	delete(tasks[1], "description")
	h := newHarness(t, testTemplate(nil), scripted(tasks, nil), false)
	id := h.create()
	if err := h.eng.Start(context.Background(), id); err != nil {
		t.Fatal(err)
	}
	h.until("the task list waits for the user", func() bool {
		run, _ := h.st.Run(context.Background(), id)
		return run.Status == "confirming" || store.Finished(run.Status)
	})
	run, _ := h.st.Run(context.Background(), id)
	if run.Status != "confirming" || run.Error != "" || !strings.Contains(run.Message, "b has no description") {
		t.Fatalf("run = %s %q: %q", run.Status, run.Error, run.Message)
	}
	if n := h.rec.count(EventReprompted); n != 2 {
		t.Errorf("re-prompted %d times, want 2 (maxRetries) first", n)
	}
	ts, _ := h.st.Tasks(context.Background(), id)
	if len(ts) != 2 || ts[0].ID != "task_001" || ts[1].ID != "b" || ts[1].Description != "" {
		t.Fatalf("tasks = %+v", ts)
	}
	desc := "Work on b, as the user wrote it"
	if err := h.eng.Confirm(context.Background(), id, Modifications{Edit: []TaskEdit{{ID: "b", Description: &desc}}}); err != nil {
		t.Fatal(err)
	}
	if run := h.wait(id); run.Status != "completed" || run.TasksCompleted != 2 {
		t.Fatalf("run = %s %d/%d: %s", run.Status, run.TasksCompleted, run.TasksTotal, run.Error)
	}
}
