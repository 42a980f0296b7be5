package engine

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/baton-app/baton/backend/store"
	"github.com/baton-app/baton/backend/template"
)

func TestRestoreAfterCrashNoDuplicateWorkers(t *testing.T) {
	t.Parallel()
	tasks := plan(planned{"a", 5, nil}, planned{"b", 5, nil}, planned{"c", 5, []string{"a"}})
	h := newHarness(t, testTemplate(nil), scripted(tasks, func(h *fakeHost, s *fakeSession, task string, _ bool) bool {
		return task == "a" || task == "b" // a and b run until the test ends them
	}), true)
	id := h.create()
	if err := h.eng.Start(context.Background(), id); err != nil {
		t.Fatal(err)
	}
	h.until("a and b running", func() bool {
		w := h.workers(id)
		return w["a"].Status == "running" && w["b"].Status == "running"
	})
	// Simulate a crash that happened after b's session id was stored but
	// before its start was confirmed: b is "spawning" in the store.
	h.close()
	st, err := store.Open(h.path, store.WithLogger(quiet))
	if err != nil {
		t.Fatal(err)
	}
	ws, _ := st.Workers(context.Background(), id)
	for _, w := range ws {
		if w.TaskID == "b" {
			w.Status = "spawning"
			if err := st.Commit(context.Background(), id, store.Change{Workers: []store.Worker{w}}); err != nil {
				t.Fatal(err)
			}
		}
	}
	_ = st.Close()
	// Meanwhile worker a finished its work.
	sa, _ := WorkerSessionID(id, "a")
	h.host.finishTurn(sa, block("completion", map[string]any{"task_id": "a", "status": "success"}))

	h.open()
	n, err := h.eng.Restore(context.Background())
	if err != nil || n != 1 {
		t.Fatalf("Restore = %d, %v", n, err)
	}
	h.until("a completed after restore", func() bool { return h.workers(id)["a"].Status == "completed" })
	h.until("b re-attached", func() bool { return h.workers(id)["b"].Status == "running" })
	sb, _ := WorkerSessionID(id, "b")
	h.host.finishTurn(sb, block("completion", map[string]any{"task_id": "b", "status": "success"}))
	run := h.wait(id)
	if run.Status != "completed" || run.TasksCompleted != 3 {
		t.Fatalf("run = %s, %d completed: %s", run.Status, run.TasksCompleted, run.Error)
	}
	for task, n := range h.host.workerStarts() {
		if n != 1 {
			t.Errorf("task %s was started %d times", task, n)
		}
	}
	// Tool and usage totals were not counted twice by the replay.
	if w := h.workers(id)["a"]; w.InputTokens != 100 {
		t.Errorf("a input tokens = %d after restore, want 100", w.InputTokens)
	}
}

func TestRestoreMidAnalysis(t *testing.T) {
	t.Parallel()
	var hold bool = true
	h := newHarness(t, testTemplate(nil), func(fh *fakeHost, s *fakeSession, text string) {
		if hold && strings.Contains(text, "ASK analysis") {
			return
		}
		scripted(plan(planned{"a", 5, nil}), nil)(fh, s, text)
	}, false)
	id := h.create()
	if err := h.eng.Start(context.Background(), id); err != nil {
		t.Fatal(err)
	}
	h.until("analyzing", func() bool { return h.status(id) == "analyzing" })
	h.close()
	h.host.mu.Lock()
	hold = false
	main := h.host.sessions[h.host.order[0]]
	main.asked = "analysis"
	h.host.mu.Unlock()
	h.host.finishTurn(main.id, block("analysis", map[string]any{"summary": "ok", "recommended_splits": 1}))
	h.open()
	if n, err := h.eng.Restore(context.Background()); err != nil || n != 1 {
		t.Fatalf("Restore = %d, %v", n, err)
	}
	run := h.wait(id)
	if run.Status != "completed" {
		t.Fatalf("run = %s: %s", run.Status, run.Error)
	}
	h.host.mu.Lock()
	defer h.host.mu.Unlock()
	mains := 0
	for _, s := range h.host.starts {
		if s.ID == "" {
			mains++
		}
	}
	if mains != 1 {
		t.Errorf("%d main sessions started", mains)
	}
}

func TestRestoreAsksAgainAPromptThatWasNeverSent(t *testing.T) {
	t.Parallel()
	h := newHarness(t, testTemplate(nil), scripted(plan(planned{"a", 5, nil}), nil), true)
	id := h.create()
	// The process stopped right after the run became "planning", before the
	// planning prompt went out.
	run, err := h.st.Run(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	h.close()
	st, err := store.Open(h.path, store.WithLogger(quiet))
	if err != nil {
		t.Fatal(err)
	}
	run.Status = "planning"
	run.Phase = string(PhaseTaskPlanning)
	if err := st.Commit(context.Background(), id, store.Change{Run: &run}); err != nil {
		t.Fatal(err)
	}
	_ = st.Close()
	h.open()
	if err := h.eng.RestoreRun(context.Background(), "orch_nope"); !errors.Is(err, ErrUnknownRun) {
		t.Errorf("RestoreRun of an unknown run = %v", err)
	}
	if err := h.eng.RestoreRun(context.Background(), id); err != nil {
		t.Fatal(err)
	}
	if run := h.wait(id); run.Status != "completed" {
		t.Fatalf("run = %s: %s", run.Status, run.Error)
	}
	// Once the run's goroutine has ended, a finished run cannot be restored.
	h.until("RestoreRun of a completed run to be refused", func() bool {
		return errors.Is(h.eng.RestoreRun(context.Background(), id), ErrIllegalTransition)
	})
}

func TestRestoreInConfirmingShowsThePlanAgain(t *testing.T) {
	t.Parallel()
	h := newHarness(t, testTemplate(func(tp *template.Template) { tp.Config.AutoConfirm = false }),
		scripted(plan(planned{"a", 5, nil}, planned{"b", 5, []string{"a"}}), nil), true)
	id := h.create()
	if err := h.eng.Start(context.Background(), id); err != nil {
		t.Fatal(err)
	}
	h.until("confirming", func() bool { return h.rec.count(EventTasksReady) > 0 })
	h.close()
	h.open()
	if err := h.eng.RestoreRun(context.Background(), id); err != nil {
		t.Fatal(err)
	}
	if h.rec.count(EventTasksReady) != 1 {
		t.Fatalf("tasksReady after restore: %d", h.rec.count(EventTasksReady))
	}
	h.rec.mu.Lock()
	var ready Payload
	for _, p := range h.rec.byRun[id] {
		if len(p.Tasks) > 0 {
			ready = p
		}
	}
	h.rec.mu.Unlock()
	if len(ready.Tasks) != 2 || len(ready.Groups) != 2 || ready.Status != "confirming" {
		t.Errorf("tasksReady payload = %+v", ready)
	}
	if err := h.eng.Confirm(context.Background(), id, Modifications{}); err != nil {
		t.Fatal(err)
	}
	if run := h.wait(id); run.Status != "completed" || run.TasksCompleted != 2 {
		t.Errorf("run = %s, %d completed", run.Status, run.TasksCompleted)
	}
}

func TestRestoreStartsANeverStartedWorkerUnderItsID(t *testing.T) {
	t.Parallel()
	for _, transient := range []bool{false, true} {
		name := "never started"
		if transient {
			name = "host cannot tell"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t, testTemplate(func(tp *template.Template) { tp.Config.AutoConfirm = false }),
				scripted(plan(planned{"a", 5, nil}), nil), true)
			id := h.create()
			ctx := context.Background()
			if err := h.eng.Start(ctx, id); err != nil {
				t.Fatal(err)
			}
			h.until("confirming", func() bool { return h.rec.count(EventTasksReady) > 0 })
			h.close()
			// The process stopped after storing worker a as spawning, before
			// the host heard of it.
			st, err := store.Open(h.path, store.WithLogger(quiet))
			if err != nil {
				t.Fatal(err)
			}
			run, _ := st.Run(ctx, id)
			run.Status, run.Phase = "running", string(PhaseWorkerExecution)
			sid, _ := WorkerSessionID(id, "a")
			if err := st.Commit(ctx, id, store.Change{Run: &run, Workers: []store.Worker{{TaskID: "a", Status: "spawning", SessionID: string(sid)}}}); err != nil {
				t.Fatal(err)
			}
			_ = st.Close()
			if transient {
				// The host fails every call about a unknown session with an
				// error that does not say "no such session": the engine follows
				// the session until reads keep failing, then retries under a new id.
				h.host.mu.Lock()
				h.host.opaque = true
				h.host.mu.Unlock()
			}
			h.open()
			if err := h.eng.RestoreRun(ctx, id); err != nil {
				t.Fatal(err)
			}
			run = h.wait(id)
			if run.Status != "completed" || run.TasksCompleted != 1 {
				t.Fatalf("run = %s: %s", run.Status, run.Error)
			}
			h.host.mu.Lock()
			defer h.host.mu.Unlock()
			var ids []string
			for _, s := range h.host.starts {
				if s.ID != "" {
					ids = append(ids, string(s.ID))
				}
			}
			want := sid
			if transient {
				want, _ = WorkerSessionID(id, "a-r1")
			}
			if len(ids) != 1 || ids[0] != string(want) {
				t.Errorf("worker starts = %v, want once under %s", ids, want)
			}
		})
	}
}
