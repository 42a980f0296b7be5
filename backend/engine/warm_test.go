package engine

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/baton-app/baton/backend/session"
	"github.com/baton-app/baton/backend/template"
)

// warmHost is the fake host with warm starts and a memory budget: it
// records what it was asked to warm and cool, and says how many sessions
// fit as the test sets it.
type warmHost struct {
	*fakeHost
	mu     sync.Mutex
	warmed []session.StartOptions
	early  []session.StartOptions // warmed without an id
	// earlySent is how many messages had been sent to sessions when each
	// early one was warmed; again are the early ids asked for again.
	earlySent []int
	again     []session.ID
	cooled    []session.ID
	warm      map[session.ID]bool
	room      session.Room
}

var (
	_ session.Warmer = (*warmHost)(nil)
	_ session.Roomer = (*warmHost)(nil)
)

func (w *warmHost) Warm(_ context.Context, opts session.StartOptions) (session.ID, error) {
	w.fakeHost.mu.Lock()
	sent := len(w.fakeHost.sends)
	w.fakeHost.mu.Unlock()
	w.mu.Lock()
	defer w.mu.Unlock()
	if strings.HasPrefix(string(opts.ID), "warm:") {
		w.again = append(w.again, opts.ID)
		return opts.ID, nil
	}
	if opts.ID == "" {
		w.earlySent = append(w.earlySent, sent)
		w.early = append(w.early, opts)
		id := session.ID(fmt.Sprintf("warm:%d", len(w.early)))
		w.warm[id] = true
		return id, nil
	}
	if !w.warm[opts.ID] {
		w.warm[opts.ID] = true
		w.warmed = append(w.warmed, opts)
	}
	return opts.ID, nil
}

func (w *warmHost) Cool(id session.ID) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.warm[id] {
		delete(w.warm, id)
		w.cooled = append(w.cooled, id)
	}
}

func (w *warmHost) Start(ctx context.Context, opts session.StartOptions) (session.ID, error) {
	w.mu.Lock()
	delete(w.warm, opts.ID) // taken
	w.mu.Unlock()
	return w.fakeHost.Start(ctx, opts)
}

// Room is the room set less what the live workers take, as a real host
// measures it.
func (w *warmHost) Room() session.Room {
	w.fakeHost.mu.Lock()
	live := int64(w.fakeHost.live)
	w.fakeHost.mu.Unlock()
	w.mu.Lock()
	defer w.mu.Unlock()
	r := w.room
	r.Free = max(0, r.Free-live*r.Each)
	return r
}

func (w *warmHost) setRoom(r session.Room) {
	w.mu.Lock()
	w.room = r
	w.mu.Unlock()
}

func (w *warmHost) warmedIDs() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []string
	for _, o := range w.warmed {
		out = append(out, string(o.ID))
	}
	return out
}

func (w *warmHost) wasCooled(id session.ID) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, c := range w.cooled {
		if c == id {
			return true
		}
	}
	return false
}

// heldWorkers is an agent whose workers of tasks in hold keep their turn
// running until the test ends it with finishTurn.
func heldWorkers(tasks []map[string]any, hold ...string) agentFunc {
	return scripted(tasks, func(h *fakeHost, s *fakeSession, task string, _ bool) bool {
		for _, t := range hold {
			if t == task {
				return true
			}
		}
		return false
	})
}

func newWarmHarness(t *testing.T, tmpl template.Template, agent agentFunc) (*harness, *warmHost) {
	t.Helper()
	dir := t.TempDir()
	fh := newFakeHost(agent, true)
	wh := &warmHost{fakeHost: fh, warm: map[session.ID]bool{}}
	h := &harness{t: t, dir: dir, path: dir + "/baton.db", host: fh, tmpl: tmpl, engineHost: wh,
		clock: &fakeClock{t: time.Date(2026, 11, 22, 6, 0, 0, 0, time.UTC)}}
	h.open()
	t.Cleanup(func() { h.close() })
	return h, wh
}

func doneBlock(task string) string {
	return block("completion", map[string]any{"task_id": task, "status": "success", "summary": "Did " + task})
}

// TestWarmStarts: while a task's dependency runs, the engine warms the
// task's session with the options its Start later uses; a task whose
// dependencies have not started yet is not warmed.
func TestWarmStarts(t *testing.T) {
	t.Parallel()
	tasks := plan(planned{"a", 5, nil}, planned{"b", 5, []string{"a"}}, planned{"c", 5, []string{"b"}})
	h, wh := newWarmHarness(t, testTemplate(nil), heldWorkers(tasks, "a", "b"))
	id := h.create()
	if err := h.eng.Start(context.Background(), id); err != nil {
		t.Fatal(err)
	}
	idA, _ := WorkerSessionID(id, "a")
	idB, _ := WorkerSessionID(id, "b")
	idC, _ := WorkerSessionID(id, "c")
	h.until("a runs", func() bool { return h.workers(id)["a"].Status == "running" })
	h.until("b warmed", func() bool { return len(wh.warmedIDs()) > 0 })
	if got := wh.warmedIDs(); len(got) != 1 || got[0] != string(idB) {
		t.Fatalf("warmed %v while a runs, want only %s", got, idB)
	}
	h.host.finishTurn(idA, doneBlock("a"))
	h.until("b runs", func() bool { return h.workers(id)["b"].Status == "running" })
	h.until("c warmed", func() bool { return len(wh.warmedIDs()) == 2 })
	h.host.finishTurn(idB, doneBlock("b"))
	run := h.wait(id)
	if run.Status != "completed" {
		t.Fatalf("run %s: %s", run.Status, run.Message)
	}
	wh.mu.Lock()
	defer wh.mu.Unlock()
	// While the run analysed and planned: maxWorkers sessions for the first workers,
	// in the shape a's start then had; the one a did not take was cooled
	// when the run ended.
	if len(wh.early) != 2 {
		t.Fatalf("warmed %d sessions while planning, want maxWorkers (2)", len(wh.early))
	}
	// They were warmed as the run analysed (before the planning prompt was
	// sent), and asked for again as it planned.
	if wh.earlySent[0] != 0 || len(wh.again) < 2 || wh.again[0] != "warm:1" {
		t.Errorf("early ones warmed after %d messages sent, asked again %v; want during the analysis, again while planning", wh.earlySent[0], wh.again)
	}
	var startA session.StartOptions
	for _, s := range h.host.starts {
		if s.ID == idA {
			startA = s
		}
	}
	if e := wh.early[0]; e.Cwd != startA.Cwd || e.Model != startA.Model || e.PermissionMode != startA.PermissionMode ||
		e.SystemPrompt != startA.SystemPrompt || e.Cwd == "" || e.Model == "" {
		t.Errorf("warmed while planning %+v; a started with %+v", e, startA)
	}
	if len(wh.cooled) != 2 || !strings.HasPrefix(string(wh.cooled[0]), "warm:") {
		t.Errorf("cooled %v, want the two early ones (the fake lets no Start take them)", wh.cooled)
	}
	if wh.warmed[1].ID != idC {
		t.Errorf("warmed second %s, want %s", wh.warmed[1].ID, idC)
	}
	for _, warmed := range wh.warmed {
		var started *session.StartOptions
		for i := range h.host.starts {
			if h.host.starts[i].ID == warmed.ID {
				started = &h.host.starts[i]
			}
		}
		if started == nil {
			t.Fatalf("%s was warmed and never started", warmed.ID)
		}
		want := *started
		want.Message = ""
		if warmed != want {
			t.Errorf("warmed with %+v, started with %+v", warmed, want)
		}
		if warmed.SystemPrompt == "" && session.TakesSystemPrompt(wh) {
			t.Errorf("warmed without the system prompt")
		}
	}
}

// TestWarmCooled: a warm session whose task is skipped (its dependency
// failed) is cooled, and so is every warm session of a cancelled run.
func TestWarmCooled(t *testing.T) {
	t.Parallel()
	t.Run("skipped", func(t *testing.T) {
		t.Parallel()
		tasks := plan(planned{"a", 5, nil}, planned{"b", 5, []string{"a"}})
		h, wh := newWarmHarness(t, testTemplate(func(t *template.Template) { t.Config.MaxRetries = 0 }), heldWorkers(tasks, "a"))
		id := h.create()
		if err := h.eng.Start(context.Background(), id); err != nil {
			t.Fatal(err)
		}
		idA, _ := WorkerSessionID(id, "a")
		idB, _ := WorkerSessionID(id, "b")
		h.until("b warmed", func() bool { return len(wh.warmedIDs()) == 1 })
		h.until("a runs", func() bool { return h.workers(id)["a"].Status == "running" })
		h.host.finishTurn(idA, "I could not do it; colours confuse me.")
		h.wait(id)
		if w := h.workers(id)["b"]; !w.Skipped {
			t.Fatalf("b = %+v, want skipped", w)
		}
		if !wh.wasCooled(idB) {
			t.Errorf("the skipped task's warm session was not cooled (cooled %v)", wh.cooled)
		}
	})
	t.Run("cancelled", func(t *testing.T) {
		t.Parallel()
		tasks := plan(planned{"a", 5, nil}, planned{"b", 5, []string{"a"}}, planned{"c", 5, []string{"a"}})
		h, wh := newWarmHarness(t, testTemplate(nil), heldWorkers(tasks, "a"))
		id := h.create()
		if err := h.eng.Start(context.Background(), id); err != nil {
			t.Fatal(err)
		}
		idB, _ := WorkerSessionID(id, "b")
		idC, _ := WorkerSessionID(id, "c")
		h.until("b and c warmed", func() bool { return len(wh.warmedIDs()) == 2 })
		if err := h.eng.Cancel(context.Background(), id); err != nil {
			t.Fatal(err)
		}
		h.wait(id)
		h.until("both cooled", func() bool { return wh.wasCooled(idB) && wh.wasCooled(idC) })
	})
}

// TestMemoryWait: ready workers that the host's memory does not hold wait,
// with an event and their current action saying how much is free, and
// start once it grows.
func TestMemoryWait(t *testing.T) {
	t.Parallel()
	const mib = 1 << 20
	tasks := plan(planned{"a", 9, nil}, planned{"b", 5, nil}, planned{"c", 5, nil})
	h, wh := newWarmHarness(t, testTemplate(func(t *template.Template) { t.Config.MaxWorkers = 3 }), heldWorkers(tasks, "a", "b", "c"))
	wh.setRoom(session.Room{Free: 500 * mib, Each: 300 * mib, Margin: 100 * mib}) // one fits
	id := h.create()
	if err := h.eng.Start(context.Background(), id); err != nil {
		t.Fatal(err)
	}
	h.until("a runs", func() bool { return h.workers(id)["a"].Status == "running" })
	h.until("b and c wait", func() bool { return h.rec.count(EventWorkerMemory) == 2 })
	ws := h.workers(id)
	for _, task := range []string{"b", "c"} {
		// 500 MB less what a takes.
		if ws[task].Status != "pending" || ws[task].CurrentAction != "waiting for memory: 200 MB free" {
			t.Errorf("worker %s = %s, %q", task, ws[task].Status, ws[task].CurrentAction)
		}
	}
	evs, err := h.st.Events(context.Background(), id, 0, 1000)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range evs {
		if e.Name == EventWorkerMemory && strings.Contains(string(e.Payload), "waiting for memory: 200 MB free") {
			n++
		}
	}
	if n != 2 {
		t.Errorf("%d %s event rows, want 2", n, EventWorkerMemory)
	}
	if got := len(wh.warmedIDs()); got != 0 {
		t.Errorf("warmed %d sessions of workers waiting for memory", got)
	}
	wh.setRoom(session.Room{})
	h.until("b and c run", func() bool {
		ws := h.workers(id)
		return ws["b"].Status == "running" && ws["c"].Status == "running"
	})
	if ws := h.workers(id); strings.Contains(ws["b"].CurrentAction, "memory") {
		t.Errorf("b still says %q", ws["b"].CurrentAction)
	}
	for _, task := range []string{"a", "b", "c"} {
		sid, _ := WorkerSessionID(id, task)
		h.host.finishTurn(sid, doneBlock(task))
	}
	if run := h.wait(id); run.Status != "completed" {
		t.Errorf("run %s: %s", run.Status, run.Message)
	}
}
