package engine

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/baton-app/baton/backend/session"
	"github.com/baton-app/baton/backend/store"
)

// linkedHost is the fake host with a connection that can be lost, as the
// CDP hosts have: while it is down every call fails, and Link says so.
type linkedHost struct {
	*fakeHost
	lmu    sync.Mutex
	down   bool
	reason string
	ch     chan struct{}
}

func newLinkedHost(h *fakeHost) *linkedHost { return &linkedHost{fakeHost: h, ch: make(chan struct{})} }

func (l *linkedHost) Link() session.LinkState {
	l.lmu.Lock()
	defer l.lmu.Unlock()
	return session.LinkState{Up: !l.down, Reason: l.reason, Changed: l.ch}
}

func (l *linkedHost) set(down bool, reason string) {
	l.lmu.Lock()
	l.down, l.reason = down, reason
	close(l.ch)
	l.ch = make(chan struct{})
	l.lmu.Unlock()
}

func (l *linkedHost) isDown() error {
	l.lmu.Lock()
	defer l.lmu.Unlock()
	if l.down {
		return errors.New("websocket closed")
	}
	return nil
}

func (l *linkedHost) Start(ctx context.Context, o session.StartOptions) (session.ID, error) {
	if err := l.isDown(); err != nil {
		return "", err
	}
	return l.fakeHost.Start(ctx, o)
}

func (l *linkedHost) Send(ctx context.Context, id session.ID, text string) error {
	if err := l.isDown(); err != nil {
		return err
	}
	return l.fakeHost.Send(ctx, id, text)
}

func (l *linkedHost) Read(ctx context.Context, id session.ID, c session.Cursor) (session.Batch, error) {
	if err := l.isDown(); err != nil {
		return session.Batch{}, err
	}
	return l.fakeHost.Read(ctx, id, c)
}

func (l *linkedHost) Session(ctx context.Context, id session.ID) (session.Info, error) {
	if err := l.isDown(); err != nil {
		return session.Info{}, err
	}
	return l.fakeHost.Session(ctx, id)
}

// forget drops every session, as a fresh host has none of the old ones.
func (l *linkedHost) forget() {
	l.fakeHost.mu.Lock()
	l.fakeHost.sessions = map[session.ID]*fakeSession{}
	l.fakeHost.live = 0
	l.fakeHost.mu.Unlock()
}

// linkedHarness is a harness whose engine talks to a linkedHost and waits
// reconnectFor for it.
func linkedHarness(t *testing.T, tasks []map[string]any, hold func(task string) bool, reconnectFor time.Duration) (*harness, *linkedHost) {
	t.Helper()
	h := newHarness(t, testTemplate(nil), scripted(tasks, func(h *fakeHost, s *fakeSession, task string, _ bool) bool {
		return hold(task)
	}), true)
	h.close()
	lh := newLinkedHost(h.host)
	h.engineHost = lh
	h.engineOpts = func(o *Options) { o.ReconnectFor = reconnectFor }
	h.open()
	return h, lh
}

func (h *harness) finishWorker(id, task string) {
	h.t.Helper()
	sid := session.ID(h.workers(id)[task].SessionID)
	writeOutput(h.dir, "docs/"+task+".md", "# "+task+"\n")
	h.host.finishTurn(sid, block("completion", map[string]any{"task_id": task, "status": "success", "summary": "Did " + task,
		"output_files": []string{"docs/" + task + ".md"}}))
}

// A host that comes back within the bound: the run shows reconnecting, takes
// no step meanwhile, and goes on where it was; no task is started twice.
func TestReconnectInTimeGoesOn(t *testing.T) {
	t.Parallel()
	var holdB sync.Map
	holdB.Store("b", true)
	h, lh := linkedHarness(t, plan(planned{"a", 5, nil}, planned{"b", 4, nil}), func(task string) bool {
		_, ok := holdB.Load(task)
		return ok
	}, time.Minute)
	id := h.create()
	ctx := context.Background()
	if err := h.eng.Start(ctx, id); err != nil {
		t.Fatal(err)
	}
	h.until("a completed, b running", func() bool {
		w := h.workers(id)
		return w["a"].Status == "completed" && w["b"].Status == "running"
	})
	lh.set(true, "browser went away")
	h.until("reconnecting", func() bool { return h.rec.count(EventReconnecting) == 1 })
	rc := h.eng.Reconnecting(id)
	if rc == nil || rc.Reason != "browser went away" || rc.Until.Sub(rc.Since) != time.Minute {
		t.Fatalf("Reconnecting = %+v", rc)
	}
	run, _ := h.st.Run(ctx, id)
	if run.Status != "running" || !strings.Contains(run.Message, "Reconnecting") {
		t.Fatalf("while reconnecting the run is %s: %q", run.Status, run.Message)
	}
	// The worker finishes while the host is away: nothing is read until
	// it is back.
	h.finishWorker(id, "b")
	time.Sleep(100 * time.Millisecond)
	if s := h.workers(id)["b"].Status; s != "running" {
		t.Fatalf("b is %s while the host is lost", s)
	}
	lh.set(false, "")
	h.until("reconnected", func() bool { return h.rec.count(EventReconnected) == 1 })
	if h.eng.Reconnecting(id) != nil {
		t.Error("still reconnecting after the host came back")
	}
	run = h.wait(id)
	if run.Status != "completed" || run.TasksCompleted != 2 {
		t.Fatalf("run %s with %d completed: %s %s", run.Status, run.TasksCompleted, run.Message, run.Error)
	}
	if n := h.host.workerStarts(); n["a"] != 1 || n["b"] != 1 {
		t.Errorf("worker starts %v, want one each", n)
	}
}

// A host that stays away past the bound: the run stops as interrupted (not
// error) within the bound, keeps what was done, and Resume continues it
// once the host is back.
func TestReconnectTooLateInterrupts(t *testing.T) {
	t.Parallel()
	var hold sync.Map
	hold.Store("b", true)
	const bound = 300 * time.Millisecond
	h, lh := linkedHarness(t, plan(planned{"a", 5, nil}, planned{"b", 4, nil}), func(task string) bool {
		_, ok := hold.Load(task)
		return ok
	}, bound)
	id := h.create()
	ctx := context.Background()
	if err := h.eng.Start(ctx, id); err != nil {
		t.Fatal(err)
	}
	h.until("a completed, b running", func() bool {
		w := h.workers(id)
		return w["a"].Status == "completed" && w["b"].Status == "running"
	})
	lost := time.Now()
	lh.set(true, "browser went away")
	wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	run, err := h.eng.Wait(wctx, id)
	if err != nil {
		t.Fatal(err)
	}
	took := time.Since(lost)
	if run.Status != "interrupted" || run.ResumeStatus != "running" {
		t.Fatalf("after the bound the run is %s (resume %q): %s %s", run.Status, run.ResumeStatus, run.Message, run.Error)
	}
	if took < bound || took > bound+3*time.Second {
		t.Errorf("interrupted after %s, bound %s", took, bound)
	}
	if !strings.Contains(run.Message, "unreachable") || !strings.Contains(run.Message, "browser went away") || run.Error != "" {
		t.Errorf("message %q, error %q", run.Message, run.Error)
	}
	if w := h.workers(id); w["a"].Status != "completed" || w["b"].Status != "running" {
		t.Fatalf("workers after the interrupt: a %s, b %s", w["a"].Status, w["b"].Status)
	}
	if len(h.eng.Active()) != 0 {
		t.Fatalf("the interrupted run is still driven: %v", h.eng.Active())
	}
	// Resume while the host is still away: it waits again, and stops again.
	if err := h.eng.Resume(ctx, id); err != nil {
		t.Fatal(err)
	}
	h.until("interrupted again", func() bool { return len(h.eng.Active()) == 0 && h.status(id) == "interrupted" })

	lh.set(false, "")
	hold.Delete("b")
	if err := h.eng.Resume(ctx, id); err != nil {
		t.Fatal(err)
	}
	h.finishWorker(id, "b")
	run = h.wait(id)
	if run.Status != "completed" || run.TasksCompleted != 2 {
		t.Fatalf("resumed run %s with %d completed: %s %s", run.Status, run.TasksCompleted, run.Message, run.Error)
	}
	if n := h.host.workerStarts(); n["a"] != 1 || n["b"] != 1 {
		t.Errorf("worker starts %v, want one each (b's session was kept)", n)
	}
}

// A host that comes back without the run's sessions (a fresh host): Resume
// restarts the lost worker and starts a new main session that first reads
// the run so far, so the completed work is aggregated; never error.
func TestResumeWithMainGoneStartsNewMainWithSummary(t *testing.T) {
	t.Parallel()
	var hold sync.Map
	hold.Store("b", true)
	h, lh := linkedHarness(t, plan(planned{"a", 5, nil}, planned{"b", 4, nil}), func(task string) bool {
		_, ok := hold.Load(task)
		return ok
	}, 200*time.Millisecond)
	id := h.create()
	ctx := context.Background()
	if err := h.eng.Start(ctx, id); err != nil {
		t.Fatal(err)
	}
	h.until("a completed, b running", func() bool {
		w := h.workers(id)
		return w["a"].Status == "completed" && w["b"].Status == "running"
	})
	lh.set(true, "browser went away")
	if run := h.wait(id); run.Status != "interrupted" {
		t.Fatalf("run %s, want interrupted", run.Status)
	}
	mainID := session.ID(mustRun(t, h, id).MainSessionID)
	lh.forget()
	hold.Delete("b")
	lh.set(false, "")
	if err := h.eng.Resume(ctx, id); err != nil {
		t.Fatal(err)
	}
	run := h.wait(id)
	if run.Status != "completed" || run.TasksCompleted != 2 {
		t.Fatalf("resumed run %s with %d completed: %s %s; b: %+v", run.Status, run.TasksCompleted, run.Message, run.Error, h.workers(id)["b"])
	}
	h.host.mu.Lock()
	var mains []session.StartOptions
	for _, s := range h.host.starts {
		if s.ID == mainID {
			mains = append(mains, s)
		}
	}
	h.host.mu.Unlock()
	if len(mains) != 2 {
		t.Fatalf("the main session was started %d times, want 2 (the first, and the new one)", len(mains))
	}
	msg := mains[1].Message
	for _, want := range []string{"new session", "Document everything", "a \"Do a\": completed", "Report: Did a", "docs/a.md", "ASK aggregation"} {
		if !strings.Contains(msg, want) {
			t.Errorf("the new main session's first message lacks %q:\n%s", want, msg)
		}
	}
	if strings.Index(msg, "Report: Did a") > strings.Index(msg, "ASK aggregation") {
		t.Error("the summary comes after the prompt")
	}
	if n := h.host.workerStarts(); n["a"] != 1 || n["b"] != 2 {
		t.Errorf("worker starts %v, want a once and b twice (its session was lost)", n)
	}
}

func mustRun(t *testing.T, h *harness, id string) store.Run {
	t.Helper()
	run, err := h.st.Run(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return run
}

// A run paused while it waits for its host no longer waits (and is not told
// the host is back); resumed while the host is still lost, it waits again.
func TestPauseWhileReconnecting(t *testing.T) {
	t.Parallel()
	h, lh := linkedHarness(t, plan(planned{"a", 5, nil}), func(string) bool { return true }, time.Minute)
	id := h.create()
	ctx := context.Background()
	if err := h.eng.Start(ctx, id); err != nil {
		t.Fatal(err)
	}
	h.until("a running", func() bool { return h.workers(id)["a"].Status == "running" })
	lh.set(true, "browser went away")
	h.until("reconnecting", func() bool { return h.eng.Reconnecting(id) != nil })
	if err := h.eng.Pause(ctx, id); err != nil {
		t.Fatal(err)
	}
	h.until("no longer reconnecting", func() bool { return h.eng.Reconnecting(id) == nil })
	if n := h.rec.count(EventReconnected); n != 0 {
		t.Fatalf("%d reconnected events while the host is still lost", n)
	}
	if s := h.status(id); s != "paused" {
		t.Fatalf("status %s, want paused", s)
	}
	if err := h.eng.Resume(ctx, id); err != nil {
		t.Fatal(err)
	}
	h.until("reconnecting again", func() bool { return h.eng.Reconnecting(id) != nil && h.rec.count(EventReconnecting) == 2 })
	lh.set(false, "")
	h.until("reconnected", func() bool { return h.rec.count(EventReconnected) == 1 })
	h.finishWorker(id, "a")
	if run := h.wait(id); run.Status != "completed" {
		t.Fatalf("run %s: %s %s", run.Status, run.Message, run.Error)
	}
}

// A host that comes back without the main session after every task
// completed, while the run waits for the aggregation (its reads and sends
// of the gone session fail in its own words, as a page's do): a new main
// session reads the run so far and aggregates it; the run completes, never
// error.
func TestHostBackWithoutMainAfterTheTasks(t *testing.T) {
	t.Parallel()
	var held sync.Map // "aggregation" while its first ask is left unanswered
	held.Store("aggregation", true)
	h := newHarness(t, testTemplate(nil), nil, true)
	agent := scripted(plan(planned{"a", 5, nil}, planned{"b", 4, nil}), nil)
	h.host.agent = func(fh *fakeHost, s *fakeSession, text string) {
		if strings.Contains(text, "ASK aggregation") {
			if _, ok := held.LoadAndDelete("aggregation"); ok {
				return // the host goes away before it answers
			}
		}
		agent(fh, s, text)
	}
	h.close()
	lh := newLinkedHost(h.host)
	h.engineHost = lh
	h.engineOpts = func(o *Options) { o.ReconnectFor = time.Minute }
	h.open()
	id := h.create()
	ctx := context.Background()
	if err := h.eng.Start(ctx, id); err != nil {
		t.Fatal(err)
	}
	h.until("aggregating", func() bool { return h.status(id) == "aggregating" && h.rec.count(EventPhaseChanged) > 0 })
	mainID := session.ID(mustRun(t, h, id).MainSessionID)
	h.until("the aggregation asked", func() bool {
		h.host.mu.Lock()
		defer h.host.mu.Unlock()
		s := h.host.sessions[mainID]
		return s != nil && strings.Contains(string(s.entries[len(s.entries)-1]), "ASK aggregation")
	})
	lh.set(true, "browser went away")
	h.until("reconnecting", func() bool { return h.eng.Reconnecting(id) != nil })
	lh.forget() // its Read and Send fail as "no session …", its Session says ErrNoSession
	lh.set(false, "")
	run := h.wait(id)
	if run.Status != "completed" || run.TasksCompleted != 2 || run.Error != "" {
		t.Fatalf("run %s with %d completed: %s %s", run.Status, run.TasksCompleted, run.Message, run.Error)
	}
	h.host.mu.Lock()
	var mains []session.StartOptions
	for _, s := range h.host.starts {
		if s.ID == mainID {
			mains = append(mains, s)
		}
	}
	h.host.mu.Unlock()
	if len(mains) != 2 || !strings.Contains(mains[1].Message, "Report: Did a") || !strings.Contains(mains[1].Message, "ASK aggregation") {
		t.Fatalf("the main session was started %d times; the new one's first message:\n%s", len(mains), mains[len(mains)-1].Message)
	}
	if n := h.host.workerStarts(); n["a"] != 1 || n["b"] != 1 {
		t.Errorf("worker starts %v, want one each", n)
	}
}
