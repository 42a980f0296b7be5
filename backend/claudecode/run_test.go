//go:build unix

package claudecode

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/baton-app/baton/backend/engine"
	"github.com/baton-app/baton/backend/session"
	"github.com/baton-app/baton/backend/store"
	"github.com/baton-app/baton/backend/template"
)

type fixed struct{ t template.Template }

func (f fixed) Get(string) (template.Template, error) { return f.t, nil }

// events counts the engine's events.
type events struct {
	mu    sync.Mutex
	names map[string]int
	start time.Time
	trace []string
	times map[string][]time.Time // "name task" → when
}

func (e *events) Emit(name string, p engine.Payload) {
	e.mu.Lock()
	e.names[name]++
	if e.times == nil {
		e.times = map[string][]time.Time{}
	}
	e.times[name+" "+p.TaskID] = append(e.times[name+" "+p.TaskID], time.Now())
	if name != engine.EventWorkerProgress {
		e.trace = append(e.trace, fmt.Sprintf("%6.2fs %s %s %s", time.Since(e.start).Seconds(), name, p.TaskID, p.Message))
	}
	e.mu.Unlock()
}

// firstAfter is when the first event name of task came after t.
func (e *events) firstAfter(name, task string, t time.Time) (time.Time, bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, at := range e.times[name+" "+task] {
		if at.After(t) {
			return at, true
		}
	}
	return time.Time{}, false
}

func (e *events) count(name string) int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.names[name]
}

func systemTemplate(t *testing.T, id string) template.Template {
	t.Helper()
	mgr, err := template.New(t.TempDir(), template.Options{Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	tmpl, err := mgr.Get(id)
	if err != nil {
		t.Fatal(err)
	}
	tmpl.Config.AutoConfirm = true
	return tmpl
}

// runEngine runs tmpl on dir through the engine and host until the run
// finishes, answering with answer whatever a worker waits for.
func runEngine(t *testing.T, h *Host, tmpl template.Template, dir, request string, answer func(*engine.Engine, engine.Snapshot)) (engine.Snapshot, *events) {
	t.Helper()
	return runEngineWith(t, h, tmpl, dir, request, nil, answer)
}

// runEngineWith is runEngine with the run's template variables.
func runEngineWith(t *testing.T, h *Host, tmpl template.Template, dir, request string, vars map[string]any, answer func(*engine.Engine, engine.Snapshot)) (engine.Snapshot, *events) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	st, err := store.Open(filepath.Join(t.TempDir(), "baton.db"), store.WithLogger(quiet))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ev := &events{names: map[string]int{}, start: time.Now()}
	defer func() {
		if t.Failed() || testing.Verbose() {
			ev.mu.Lock()
			t.Logf("events:\n%s", strings.Join(ev.trace, "\n"))
			ev.mu.Unlock()
		}
	}()
	eng, err := engine.New(engine.Options{Store: st, Host: h, Templates: fixed{tmpl}, Emitter: ev, Logger: quiet, Home: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		sctx, scancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer scancel()
		if err := eng.Shutdown(sctx); err != nil {
			t.Errorf("Shutdown: %v", err)
		}
	}()
	run, err := eng.Create(ctx, engine.CreateRequest{TemplateID: tmpl.ID, Cwd: dir, Request: request, Variables: vars})
	if err != nil {
		t.Fatal(err)
	}
	if err := eng.Start(ctx, run.ID); err != nil {
		t.Fatal(err)
	}
	for answer != nil && ctx.Err() == nil {
		snap, err := eng.Snapshot(ctx, run.ID)
		if err != nil {
			break
		}
		if store.Finished(snap.Run.Status) {
			break
		}
		answer(eng, snap)
		time.Sleep(50 * time.Millisecond)
	}
	if _, err := eng.Wait(ctx, run.ID); err != nil {
		snap, _ := eng.Snapshot(context.Background(), run.ID)
		for _, w := range snap.Workers {
			t.Logf("worker %s: %s, session %s, action %q, error %q, retries %d, waiting %+v", w.TaskID, w.Status, w.SessionID, w.CurrentAction, w.Error, w.RetryCount, w.Waiting)
		}
		for _, id := range append([]string{snap.Run.MainSessionID}, sessionIDs(snap)...) {
			info, err := h.Session(context.Background(), session.ID(id))
			t.Logf("session %s: running %v turn %v pending %d %v", id, info.Running, info.TurnRunning, len(info.Pending), err)
		}
		t.Fatalf("Wait: %v (run is %s: %s %s)", err, snap.Run.Status, snap.Run.Message, snap.Run.Error)
	}
	snap, err := eng.Snapshot(ctx, run.ID)
	if err != nil {
		t.Fatal(err)
	}
	return snap, ev
}

func sessionIDs(s engine.Snapshot) []string {
	var out []string
	for _, w := range s.Workers {
		if w.SessionID != "" {
			out = append(out, w.SessionID)
		}
	}
	return out
}

// TestDocumentationRun runs the documentation template through the engine,
// this host, the real CLI and model-sim: every task completes, the
// workers' files are in the folder, tokens and cost add up, and no child
// is left.
func TestDocumentationRun(t *testing.T) {
	// The main session's child ends while it waits through the worker
	// phase, and the aggregation prompt resumes it.
	r := newRig(t, "happy", func(o *Options) { o.IdleStop = 500 * time.Millisecond })
	tmpl := systemTemplate(t, "documentation")
	tmpl.Config.MaxWorkers = 2
	dir := project(t)
	// Under acceptEdits the CLI asks before "go test": the prompts are
	// answered as a user would, from the worker cards.
	asked := map[string]bool{}
	snap, ev := runEngine(t, r.host, tmpl, dir, "Document this project", func(eng *engine.Engine, s engine.Snapshot) {
		for _, w := range s.Workers {
			if w.Waiting != nil && !asked[w.Waiting.RequestID] {
				asked[w.Waiting.RequestID] = true
				if err := eng.RespondPermission(context.Background(), s.Run.ID, w.TaskID, session.AllowOnce, nil); err != nil {
					t.Errorf("answer %s's prompt: %v", w.TaskID, err)
				}
			}
		}
	})
	if len(asked) == 0 {
		t.Error("no worker asked to run the tests")
	}
	if snap.Run.Status != "completed" || snap.Run.TasksTotal == 0 || snap.Run.TasksCompleted != snap.Run.TasksTotal {
		t.Fatalf("run %s: %d of %d completed: %s", snap.Run.Status, snap.Run.TasksCompleted, snap.Run.TasksTotal, snap.Run.Error)
	}
	files := 0
	for _, w := range snap.Workers {
		if w.Tools.Total == 0 || w.InputTokens == 0 || w.CostUSD <= 0 || w.Summary == "" || w.Unstructured {
			t.Errorf("worker %s: tools %+v, tokens %d, cost %v, summary %q, unstructured %v", w.TaskID, w.Tools, w.InputTokens, w.CostUSD, w.Summary, w.Unstructured)
			es := entries(t, r.host, session.ID(w.SessionID))
			for _, e := range es[max(0, len(es)-4):] {
				t.Logf("  %s", e.raw[:min(len(e.raw), 300)])
			}
		}
		for _, f := range w.OutputFiles {
			if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
				t.Errorf("worker %s names %s, which is not in the folder: %v", w.TaskID, f, err)
			}
			files++
		}
	}
	if files == 0 {
		t.Error("the workers wrote no file")
	}
	if snap.Run.CostUSD <= 0 || snap.Run.InputTokens == 0 {
		t.Errorf("run cost %v, input tokens %d", snap.Run.CostUSD, snap.Run.InputTokens)
	}
	if ev.count(engine.EventWorkerCompleted) != snap.Run.TasksTotal {
		t.Errorf("%d worker:completed events for %d tasks", ev.count(engine.EventWorkerCompleted), snap.Run.TasksTotal)
	}
	// Reported workers were archived: their children ended.
	if n := len(r.host.Running()); n > 1 {
		t.Errorf("%d children run after the run; only the main session's may", n)
	}
	r.host.mu.Lock()
	spawns := r.host.sessions[session.ID(snap.Run.MainSessionID)].spawns
	r.host.mu.Unlock()
	if spawns < 2 {
		t.Errorf("the main session ran in %d child(ren); the idle stop should have made the aggregation resume it", spawns)
	}
	sessions, _ := r.host.List(context.Background(), false)
	if len(sessions) != 1 || sessions[0].ID != session.ID(snap.Run.MainSessionID) {
		t.Errorf("sessions without hidden workers: %+v", sessions)
	}
	all, _ := r.host.List(context.Background(), true)
	if len(all) != 1+snap.Run.TasksTotal {
		t.Errorf("%d sessions with hidden workers for %d tasks", len(all), snap.Run.TasksTotal)
	}
}

// TestKilledWorkerGoesOn kills one worker's CLI with SIGKILL in the middle
// of its turn: the engine hears of it from the exit at once, tells the
// worker to go on (with what it already did), and the session goes on with
// --resume; the run completes with every task done once.
func TestKilledWorkerGoesOn(t *testing.T) {
	r := newRig(t, "happy")
	tmpl := systemTemplate(t, "documentation")
	tmpl.Config.MaxWorkers = 2
	tmpl.Config.PermissionMode = "bypassPermissions"
	if os.Geteuid() == 0 {
		// The CLI refuses bypassPermissions as root: answer the prompts.
		tmpl.Config.PermissionMode = "acceptEdits"
	}
	var (
		killed     session.ID
		killedTask string
		killedAt   time.Time
	)
	snap, ev := runEngine(t, r.host, tmpl, project(t), "Document this project", func(eng *engine.Engine, s engine.Snapshot) {
		for _, w := range s.Workers {
			if w.Waiting != nil {
				_ = eng.RespondPermission(context.Background(), s.Run.ID, w.TaskID, session.AllowOnce, nil)
			}
			if killed != "" || w.SessionID == "" || w.Status != "running" {
				continue
			}
			id := session.ID(w.SessionID)
			for _, e := range entries(t, r.host, id) {
				if e.Type == "assistant" {
					if pid := r.host.PID(id); pid > 0 && syscall.Kill(pid, syscall.SIGKILL) == nil {
						killed, killedTask, killedAt = id, w.TaskID, time.Now()
					}
					break
				}
			}
		}
	})
	if killed == "" {
		t.Fatal("no worker was killed")
	}
	if snap.Run.Status != "completed" || snap.Run.TasksCompleted != snap.Run.TasksTotal {
		t.Fatalf("run %s: %d of %d completed: %s", snap.Run.Status, snap.Run.TasksCompleted, snap.Run.TasksTotal, snap.Run.Error)
	}
	es := entries(t, r.host, killed)
	inits, cut := 0, false
	for _, e := range es {
		if e.Type == "system" && e.Subtype == "init" {
			inits++
		}
		if e.Type == "result" && strings.Contains(e.Result, "exited during the turn") {
			cut = true
		}
	}
	if !cut || inits != 2 {
		t.Errorf("killed session %s: cut turn recorded %v, children %d (want the same conversation resumed once)", killed, cut, inits)
	}
	// Noticed from the exit at once, not at a timeout: the worker is told
	// to go on within a moment of the kill (worker:resumed, "goes on in
	// the same session"), and it is done within its retries.
	if at, ok := ev.firstAfter(engine.EventWorkerResumed, killedTask, killedAt); !ok || at.Sub(killedAt) > 3*time.Second {
		t.Errorf("the killed worker %s was told to go on %v after the kill (told: %v)", killedTask, at.Sub(killedAt), ok)
	} else {
		t.Logf("the killed worker was told to go on %v after the kill", at.Sub(killedAt).Round(time.Millisecond))
	}
	for _, w := range snap.Workers {
		if w.TaskID == killedTask && (w.Status != "completed" || w.RetryCount > tmpl.Config.MaxRetries) {
			t.Errorf("killed worker %s: %s after %d retries (max %d)", w.TaskID, w.Status, w.RetryCount, tmpl.Config.MaxRetries)
		}
	}
}

// TestRestoreAfterRestart stops the engine and closes the host in the middle
// of the worker phase (as Baton's exit would), then opens both again on the
// same database and state folder: the run ends with every task completed by
// exactly one worker session, and the cut sessions went on with --resume.
func TestRestoreAfterRestart(t *testing.T) {
	r := newRig(t, "happy")
	tmpl := systemTemplate(t, "documentation")
	tmpl.Config.MaxWorkers = 2
	dir := project(t)
	dbPath := filepath.Join(t.TempDir(), "baton.db")
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	open := func(h *Host) (*store.Store, *engine.Engine, *events) {
		st, err := store.Open(dbPath, store.WithLogger(quiet))
		if err != nil {
			t.Fatal(err)
		}
		ev := &events{names: map[string]int{}, start: time.Now()}
		eng, err := engine.New(engine.Options{Store: st, Host: h, Templates: fixed{tmpl}, Emitter: ev, Logger: quiet, Home: t.TempDir()})
		if err != nil {
			t.Fatal(err)
		}
		return st, eng, ev
	}
	answer := func(eng *engine.Engine, runID string) {
		snap, err := eng.Snapshot(ctx, runID)
		if err != nil {
			return
		}
		for _, w := range snap.Workers {
			if w.Waiting != nil {
				_ = eng.RespondPermission(ctx, runID, w.TaskID, session.AllowOnce, nil)
			}
		}
	}
	st, eng, ev := open(r.host)
	run, err := eng.Create(ctx, engine.CreateRequest{TemplateID: tmpl.ID, Cwd: dir, Request: "Document this project"})
	if err != nil {
		t.Fatal(err)
	}
	if err := eng.Start(ctx, run.ID); err != nil {
		t.Fatal(err)
	}
	for ev.count(engine.EventWorkerStarted) < 2 {
		if ctx.Err() != nil {
			t.Fatal("no two workers started")
		}
		answer(eng, run.ID)
		time.Sleep(50 * time.Millisecond)
	}
	sctx, scancel := context.WithTimeout(ctx, 20*time.Second)
	if err := eng.Shutdown(sctx); err != nil {
		t.Fatalf("Shutdown: %v", err)
	}
	scancel()
	_ = st.Close()
	closeAndCheck(t, r.host)

	h2 := r.open(Options{Path: r.host.Path(), BaseEnv: r.env, StateDir: r.state, Logger: quiet})
	st, eng, _ = open(h2)
	defer st.Close()
	defer func() {
		sctx, scancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer scancel()
		_ = eng.Shutdown(sctx)
	}()
	if err := eng.RestoreRun(ctx, run.ID); err != nil {
		t.Fatal(err)
	}
	runID := run.ID // the goroutine must not read run, which Wait's result replaces
	stop, stopped := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(stopped)
		for {
			select {
			case <-stop:
				return
			case <-time.After(50 * time.Millisecond):
				answer(eng, runID)
			}
		}
	}()
	run, err = eng.Wait(ctx, runID)
	close(stop)
	<-stopped
	if err != nil || run.Status != "completed" || run.TasksCompleted != run.TasksTotal {
		t.Fatalf("run %s: %d of %d completed: %v %s", run.Status, run.TasksCompleted, run.TasksTotal, err, run.Error)
	}
	all, err := h2.List(ctx, true)
	if err != nil {
		t.Fatal(err)
	}
	perTask := map[string]int{}
	resumed := 0
	for _, s := range all {
		if i := strings.Index(string(s.ID), "_worker_"); i >= 0 {
			perTask[string(s.ID)[i+len("_worker_"):]]++
			inits := 0
			for _, e := range entries(t, h2, s.ID) {
				if e.Type == "system" && e.Subtype == "init" {
					inits++
				}
			}
			if inits > 1 {
				resumed++
			}
		}
	}
	if len(perTask) != run.TasksTotal {
		t.Errorf("worker sessions %v for %d tasks", perTask, run.TasksTotal)
	}
	for task, n := range perTask {
		if n != 1 {
			t.Errorf("task %s has %d worker sessions", task, n)
		}
	}
	t.Logf("%d worker sessions went on in a new child", resumed)
}

// TestCancelLeavesNoChild cancels a run while its workers run: the workers'
// children end at once, the main session's once idle, none is left.
func TestCancelLeavesNoChild(t *testing.T) {
	r := newRig(t, "slow", func(o *Options) { o.IdleStop = time.Second })
	tmpl := systemTemplate(t, "documentation")
	tmpl.Config.MaxWorkers = 2
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	st, err := store.Open(filepath.Join(t.TempDir(), "baton.db"), store.WithLogger(quiet))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ev := &events{names: map[string]int{}, start: time.Now()}
	eng, err := engine.New(engine.Options{Store: st, Host: r.host, Templates: fixed{tmpl}, Emitter: ev, Logger: quiet, Home: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		sctx, scancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer scancel()
		_ = eng.Shutdown(sctx)
	}()
	run, err := eng.Create(ctx, engine.CreateRequest{TemplateID: tmpl.ID, Cwd: project(t), Request: "Document this project [[sim:scenario=slow delay=100]]"})
	if err != nil {
		t.Fatal(err)
	}
	if err := eng.Start(ctx, run.ID); err != nil {
		t.Fatal(err)
	}
	for ev.count(engine.EventWorkerStarted) < 2 {
		if ctx.Err() != nil {
			t.Fatal("no two workers started")
		}
		time.Sleep(20 * time.Millisecond)
	}
	// The main session's child may have ended already (idle through the
	// worker phase); the workers' run.
	pids := r.host.Running()
	if len(pids) < 2 {
		t.Fatalf("%d children before the cancel, want two workers'", len(pids))
	}
	if err := eng.Cancel(ctx, run.ID); err != nil {
		t.Fatal(err)
	}
	snap, err := eng.Snapshot(ctx, run.ID)
	if err != nil || snap.Run.Status != "cancelled" {
		t.Fatalf("after Cancel: %s %v", snap.Run.Status, err)
	}
	for _, w := range snap.Workers {
		if pid := r.host.PID(session.ID(w.SessionID)); w.SessionID != "" && pid != 0 {
			t.Errorf("worker %s's child %d runs after the cancel", w.TaskID, pid)
		}
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		var left []int
		for _, pid := range pids {
			left = append(left, groupAlive(pid)...)
		}
		if len(left) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("processes left 10 s after the cancel: %v", left)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
