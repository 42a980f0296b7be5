package engine_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/baton-app/baton/backend/claudecode"
	"github.com/baton-app/baton/backend/engine"
	"github.com/baton-app/baton/backend/limits"
	"github.com/baton-app/baton/backend/store"
)

// Every session's first two requests are rate limited with retry-after
// 3 s, and the real CLI retries them by itself: the run reads its
// api_retry events as activity (the inactivity timeout is 2 s, shorter
// than each wait), says "waiting for the model (rate limited), attempt N
// of M" for the workers and the main session, and finishes without a
// timeout, a retry or a limit of its own.
func TestModelRetriesAreActivity(t *testing.T) {
	rec := &events{}
	r := newCLIRig(t, "", []string{"CLAUDE_CODE_MAX_RETRIES=3"}, nil, func(o *engine.Options) {
		o.Now, o.Emitter = time.Now, rec
	})
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	idle, zero := 2, 0
	run, err := r.eng.Create(ctx, engine.CreateRequest{TemplateID: "documentation", Cwd: r.dir,
		Request:   "Document the shop [[sim:scenario=rate-limited times=2 after=3]]",
		Overrides: &engine.Overrides{InactivityTimeout: &idle, WorkerTimeout: &zero}})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.eng.Start(ctx, run.ID); err != nil {
		t.Fatal(err)
	}
	r.confirmWhenAsked(ctx, run.ID, func(s engine.Snapshot) bool { return s.Run.Status != "analyzing" && s.Run.Status != "planning" })
	// A worker's card says so while its CLI waits.
	r.waitFor(ctx, run.ID, "a worker waiting for the model", func(s engine.Snapshot) bool {
		return slices.ContainsFunc(s.Workers, func(w store.Worker) bool {
			return strings.HasPrefix(w.CurrentAction, "waiting for the model (rate limited), attempt")
		})
	})
	final, err := r.eng.Wait(ctx, run.ID)
	if err != nil {
		t.Fatal(err)
	}
	if final.Status != "completed" {
		t.Fatalf("run %s: %s %s", final.Status, final.Message, final.Error)
	}
	workers, err := r.st.Workers(ctx, run.ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range workers {
		if w.RetryCount != 0 || w.Status != "completed" {
			t.Errorf("%s is %s after %d retries: %s", w.TaskID, w.Status, w.RetryCount, w.Error)
		}
	}
	if n := len(rec.named(engine.EventWorkerTimeout)) + len(rec.named(engine.EventLimitWaiting)); n != 0 {
		t.Errorf("%d timeouts and limit waits", n)
	}
	said := map[string][]string{} // who → what, in order
	for _, e := range rec.named(engine.EventModelRetry) {
		said[e.p.TaskID] = append(said[e.p.TaskID], e.p.Message)
	}
	want := []string{"waiting for the model (rate limited), attempt 1 of 3", "waiting for the model (rate limited), attempt 2 of 3"}
	if !slices.Equal(said[""], want) {
		t.Errorf("the main session said %q, want %q", said[""], want)
	}
	for _, w := range workers {
		if !slices.Equal(said[w.TaskID], want) {
			t.Errorf("%s said %q, want %q", w.TaskID, said[w.TaskID], want)
		}
	}
}

// A worker's every request is rate limited (retry-after 1 s) and its CLI
// gives up after one retry: each time, the run waits for the limit as long
// as the CLI's last retry waited, not Baton's own 30 s backoff, and the
// second wait is not doubled; once the limit is lifted the worker goes on
// in the same session.
func TestModelLimitWaitsAsLongAsTheCLISaid(t *testing.T) {
	rec := &events{}
	r := newCLIRig(t, "", []string{"CLAUDE_CODE_MAX_RETRIES=1"}, nil, func(o *engine.Options) {
		o.Now, o.Emitter = time.Now, rec
	})
	if err := r.sim.SetScenario("task_001", "rate-limited"); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	one := 1
	run, err := r.eng.Create(ctx, engine.CreateRequest{TemplateID: "documentation", Cwd: r.dir, Request: "Document the shop",
		Overrides: &engine.Overrides{MaxWorkers: &one}})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.eng.Start(ctx, run.ID); err != nil {
		t.Fatal(err)
	}
	r.confirmWhenAsked(ctx, run.ID, func(s engine.Snapshot) bool { return s.Run.Status != "analyzing" && s.Run.Status != "planning" })
	r.waitFor(ctx, run.ID, "two limits", func(engine.Snapshot) bool { return len(rec.named(engine.EventLimitWaiting)) >= 2 })
	if err := r.sim.SetScenario("task_001", "happy"); err != nil {
		t.Fatal(err)
	}
	final, err := r.eng.Wait(ctx, run.ID)
	if err != nil {
		t.Fatal(err)
	}
	if final.Status != "completed" || final.TasksFailed != 0 {
		t.Fatalf("run %s, %d failed: %s %s", final.Status, final.TasksFailed, final.Message, final.Error)
	}
	for i, e := range rec.named(engine.EventLimitWaiting)[:2] {
		wait := e.p.ResumesAt.Sub(e.at)
		if e.p.Limit != string(limits.Rate) || wait < 500*time.Millisecond || wait > 3*time.Second {
			t.Errorf("limit %d: %s for %s, want the CLI's last wait (about 1 s)", i+1, e.p.Limit, wait.Round(time.Millisecond))
		}
	}
	if !slices.ContainsFunc(rec.named(engine.EventModelRetry), func(e seen) bool {
		return e.p.TaskID == "task_001" && e.p.Message == "waiting for the model (rate limited), attempt 1 of 1"
	}) {
		t.Error("task_001's retry was not shown")
	}
	workers, err := r.st.Workers(ctx, run.ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range workers {
		if w.RetryCount != 0 {
			t.Errorf("%s was retried %d times: %s", w.TaskID, w.RetryCount, w.Error)
		}
	}
}

// The model goes away while the workers run (model-sim shut down): the
// host's link goes down within seconds, the run shows "Reconnecting to the
// model", takes no step, and after the bound stops as interrupted (never a
// bad reply, never error). With the model back at the same address, Resume
// continues every session where it was: no task runs twice.
func TestModelOutageInterruptsAndResumes(t *testing.T) {
	rec := &events{}
	addr := ""
	r := newCLIRig(t, addr, []string{"CLAUDE_CODE_MAX_RETRIES=2"}, func(o *claudecode.Options) {
		o.ProbeEvery = 200 * time.Millisecond
	}, func(o *engine.Options) {
		o.Now, o.Emitter, o.ReconnectFor = time.Now, rec, 3*time.Second
	})
	addr = strings.TrimPrefix(r.sim.URL(), "http://")
	// The workers' answers come slowly, so the model goes away mid-turn.
	if err := r.sim.SetScenario("task_0", "slow"); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	zero := 0
	run, err := r.eng.Create(ctx, engine.CreateRequest{TemplateID: "documentation", Cwd: r.dir, Request: "Document the shop",
		Overrides: &engine.Overrides{InactivityTimeout: &zero, WorkerTimeout: &zero}})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.eng.Start(ctx, run.ID); err != nil {
		t.Fatal(err)
	}
	r.confirmWhenAsked(ctx, run.ID, func(s engine.Snapshot) bool { return s.Run.Status != "analyzing" && s.Run.Status != "planning" })
	r.waitFor(ctx, run.ID, "a worker at work", func(s engine.Snapshot) bool {
		return slices.ContainsFunc(s.Workers, func(w store.Worker) bool { return w.Status == "running" && w.Tools.Total > 0 })
	})
	lost := time.Now()
	if err := r.sim.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	// The link's state shows in a snapshot at once; the run's message
	// follows at the runner's next step.
	snap := r.waitFor(ctx, run.ID, "reconnecting", func(s engine.Snapshot) bool {
		return s.Reconnecting != nil && strings.HasPrefix(s.Run.Message, "Reconnecting to the model")
	})
	if took := time.Since(lost); took > 15*time.Second {
		t.Errorf("the outage was noticed after %s", took)
	}
	if !snap.Reconnecting.Model {
		t.Errorf("while the model is away: %+v, %q", snap.Reconnecting, snap.Run.Message)
	}
	stopped, err := r.eng.Wait(ctx, run.ID)
	if err != nil {
		t.Fatal(err)
	}
	if stopped.Status != "interrupted" || !strings.HasPrefix(stopped.Message, "The model was unreachable for") || stopped.Error != "" {
		t.Fatalf("after the bound the run is %s: %q %q", stopped.Status, stopped.Message, stopped.Error)
	}
	if n := len(rec.named(engine.EventReprompted)) + len(rec.named(engine.EventWorkerReprompted)) + len(rec.named(engine.EventWorkerFailed)); n != 0 {
		t.Errorf("the outage was read as %d bad replies or failures", n)
	}
	before, err := r.st.Workers(ctx, run.ID)
	if err != nil {
		t.Fatal(err)
	}

	// The model is back where it was.
	r.sim = r.startSim(addr)
	if err := r.eng.Resume(ctx, run.ID); err != nil {
		t.Fatal(err)
	}
	final, err := r.eng.Wait(ctx, run.ID)
	if err != nil {
		t.Fatal(err)
	}
	if final.Status != "completed" {
		t.Fatalf("the resumed run is %s: %s %s", final.Status, final.Message, final.Error)
	}
	after, err := r.st.Workers(ctx, run.ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range after {
		if w.RetryCount != 0 || w.Status != "completed" {
			t.Errorf("%s is %s after %d retries: %s", w.TaskID, w.Status, w.RetryCount, w.Error)
		}
		for _, b := range before {
			if b.TaskID == w.TaskID && b.SessionID != "" && b.SessionID != w.SessionID {
				t.Errorf("%s went on in a new session", w.TaskID)
			}
		}
	}
}
