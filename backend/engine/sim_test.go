package engine_test

import (
	"context"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/baton-app/baton/backend/claude"
	"github.com/baton-app/baton/backend/engine"
	"github.com/baton-app/baton/backend/hosts"
	"github.com/baton-app/baton/backend/session"
	"github.com/baton-app/baton/backend/simulator"
	"github.com/baton-app/baton/backend/store"
	"github.com/baton-app/baton/backend/template"
)

const chromiumPath = "/usr/bin/chromium"

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

// events records the events of the integration tests: how many of each
// name, and each with its payload and when it came.
type events struct {
	mu    sync.Mutex
	names map[string]int
	list  []seen
}

type seen struct {
	name string
	p    engine.Payload
	at   time.Time
}

func (e *events) Emit(name string, p engine.Payload) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.names == nil {
		e.names = map[string]int{}
	}
	e.names[name]++
	e.list = append(e.list, seen{name, p, time.Now()})
}

// named are the events called name, in order.
func (e *events) named(name string) []seen {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []seen
	for _, s := range e.list {
		if s.name == name {
			out = append(out, s)
		}
	}
	return out
}

func (e *events) count(name string) int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.names[name]
}

func copyProject(t *testing.T) string {
	t.Helper()
	dst := t.TempDir()
	err := filepath.WalkDir("testdata/project", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel("testdata/project", p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

// TestSimulatorRuns drives whole runs through real Chromium, the simulator
// page and the Claude Desktop adapter: the same code path as real use.
func TestSimulatorRuns(t *testing.T) {
	if testing.Short() {
		t.Skip("needs Chromium; skipped with -short")
	}
	if _, err := os.Stat(chromiumPath); err != nil {
		t.Fatalf("Chromium is needed at %s (install the chromium package): %v", chromiumPath, err)
	}
	mgr, err := template.New(t.TempDir(), template.Options{Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		scenario string            // default scenario
		rules    map[string]string // session id part → scenario
		tune     func(*template.Template)
		check    func(t *testing.T, snap engine.Snapshot, ev *events)
		answer   bool // allow every permission request a worker waits on
	}{
		{name: "happy", check: func(t *testing.T, s engine.Snapshot, ev *events) {
			if s.Run.Status != "completed" || s.Run.TasksCompleted != s.Run.TasksTotal || s.Run.TasksTotal == 0 {
				t.Fatalf("run %s: %d of %d completed: %s", s.Run.Status, s.Run.TasksCompleted, s.Run.TasksTotal, s.Run.Error)
			}
			var phases []string
			for _, a := range s.Answers {
				phases = append(phases, a.Phase)
			}
			if strings.Join(phases, ",") != "analysis,task_list,aggregation" {
				for _, a := range s.Answers {
					t.Logf("answer %s %s attempt %d errors %v", a.Phase, a.Status, a.Attempt, a.Errors)
				}
				t.Errorf("answers stored: %v", phases)
			}
			for _, w := range s.Workers {
				if w.Tools.Total == 0 || w.InputTokens == 0 || w.Summary == "" || w.Unstructured {
					t.Errorf("worker %s: tools %+v, tokens %d, summary %q", w.TaskID, w.Tools, w.InputTokens, w.Summary)
				}
			}
			if s.Run.InputTokens == 0 {
				t.Error("run token total is zero")
			}
		}},
		{name: "malformed json is repaired", scenario: "malformed-json", check: func(t *testing.T, s engine.Snapshot, ev *events) {
			if s.Run.Status != "completed" {
				t.Fatalf("run %s: %s", s.Run.Status, s.Run.Error)
			}
			repaired := 0
			for _, a := range s.Answers {
				if a.Status == "repaired" {
					repaired++
				}
			}
			if repaired == 0 {
				t.Errorf("no answer was marked repaired: %+v", s.Answers)
			}
		}},
		// The protocol reads a fenced JSON answer without delimiters (or the
		// engine re-prompts): either way every phase gets its answer.
		{name: "no delimiters is recovered", scenario: "no-delimiters", check: func(t *testing.T, s engine.Snapshot, ev *events) {
			if s.Run.Status != "completed" || s.Run.TasksFailed != 0 || s.Run.TasksCompleted != s.Run.TasksTotal {
				t.Fatalf("run %s, %d failed: %s", s.Run.Status, s.Run.TasksFailed, s.Run.Error)
			}
		}},
		{name: "workers fail", rules: map[string]string{"_worker_": "worker-fails"}, check: func(t *testing.T, s engine.Snapshot, ev *events) {
			if s.Run.Status != "failed" || s.Run.TasksCompleted != 0 || s.Run.TasksFailed+s.Run.TasksSkipped != s.Run.TasksTotal {
				t.Fatalf("run %s: %d completed, %d failed, %d skipped of %d", s.Run.Status, s.Run.TasksCompleted, s.Run.TasksFailed, s.Run.TasksSkipped, s.Run.TasksTotal)
			}
			for _, w := range s.Workers {
				if !w.Skipped && !strings.Contains(w.Error, "simulated failure") {
					t.Errorf("worker %s: reason %q", w.TaskID, w.Error)
				}
			}
			if !strings.Contains(s.Run.Message, "failed") {
				t.Errorf("run message hides the failures: %q", s.Run.Message)
			}
		}},
		{name: "workers hang and time out", rules: map[string]string{"_worker_": "worker-hangs"},
			tune: func(tp *template.Template) { tp.Config.InactivityTimeout = 1; tp.Config.MaxRetries = 1 },
			check: func(t *testing.T, s engine.Snapshot, ev *events) {
				if s.Run.Status != "failed" || s.Run.TasksCompleted != 0 {
					t.Fatalf("run %s: %d completed", s.Run.Status, s.Run.TasksCompleted)
				}
				for _, w := range s.Workers {
					if !w.Skipped && (!strings.Contains(w.Error, "no transcript activity") || w.RetryCount != 1) {
						t.Errorf("worker %s: %q after %d retries", w.TaskID, w.Error, w.RetryCount)
					}
				}
				if ev.count(engine.EventWorkerTimeout) == 0 {
					t.Error("no worker:timeout event")
				}
			}},
		{name: "a flood of entries is read in parts", rules: map[string]string{"_worker_task_001": "flood"},
			check: func(t *testing.T, s engine.Snapshot, ev *events) {
				if s.Run.Status != "completed" || s.Run.TasksCompleted != s.Run.TasksTotal {
					t.Fatalf("run %s: %d of %d: %s", s.Run.Status, s.Run.TasksCompleted, s.Run.TasksTotal, s.Run.Error)
				}
				most := 0
				for _, w := range s.Workers {
					most = max(most, w.Tools.Total)
				}
				if most < 1000 {
					t.Errorf("the flooded worker counted %d tool calls", most)
				}
			}},
		{name: "permission is surfaced and answered", rules: map[string]string{"_worker_": "needs-permission"}, answer: true,
			tune: func(tp *template.Template) { tp.Config.PermissionMode = "default" },
			check: func(t *testing.T, s engine.Snapshot, ev *events) {
				if s.Run.Status != "completed" || s.Run.TasksCompleted != s.Run.TasksTotal {
					t.Fatalf("run %s: %d of %d", s.Run.Status, s.Run.TasksCompleted, s.Run.TasksTotal)
				}
				if ev.count(engine.EventWorkerWaiting) < 2*s.Run.TasksTotal {
					t.Errorf("%d worker:permission events for %d tasks", ev.count(engine.EventWorkerWaiting), s.Run.TasksTotal)
				}
			}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
			defer cancel()
			host, _, err := hosts.StartSimulator(ctx, simulator.InstanceOptions{ChromePath: chromiumPath, Rules: tc.rules,
				Simulator: simulator.Options{Scenario: tc.scenario, Speed: 50, Logger: quiet}}, claude.Options{Logger: quiet})
			if err != nil {
				t.Fatalf("start the simulator: %v", err)
			}
			defer func() {
				sctx, scancel := context.WithTimeout(context.Background(), 30*time.Second)
				defer scancel()
				if err := host.Close(sctx); err != nil {
					t.Errorf("close the simulator: %v", err)
				}
			}()
			tmpl, err := mgr.Get("documentation")
			if err != nil {
				t.Fatal(err)
			}
			tmpl.Config.AutoConfirm = true
			if tc.tune != nil {
				tc.tune(&tmpl)
			}
			eng, ev, run, stop := startSimRun(ctx, t, host, tmpl)
			defer stop()
			for tc.answer {
				snap, err := eng.Snapshot(ctx, run.ID)
				if err != nil {
					t.Fatal(err)
				}
				if store.Finished(snap.Run.Status) {
					break
				}
				for _, w := range snap.Workers {
					if w.Waiting != nil && w.Waiting.ToolName == "Write" {
						if err := eng.RespondPermission(ctx, run.ID, w.TaskID, session.AllowOnce, nil); err != nil {
							t.Fatal(err)
						}
					}
				}
				time.Sleep(20 * time.Millisecond)
			}
			if _, err := eng.Wait(ctx, run.ID); err != nil {
				snap, _ := eng.Snapshot(context.Background(), run.ID)
				t.Fatalf("Wait: %v (run is %s: %s)", err, snap.Run.Status, snap.Run.Message)
			}
			snap, err := eng.Snapshot(ctx, run.ID)
			if err != nil {
				t.Fatal(err)
			}
			tc.check(t, snap, ev)
		})
	}
}

type fixed struct{ t template.Template }

func (f fixed) Get(id string) (template.Template, error) { return f.t, nil }

// TestSimulatorRestoreMidRun stops the engine in the middle of the worker
// phase (as a crash would: its goroutines end wherever they are), starts a
// new engine on the same database and host, and checks that the run ends
// with every task done by exactly one worker session.
func TestSimulatorRestoreMidRun(t *testing.T) {
	if testing.Short() {
		t.Skip("needs Chromium; skipped with -short")
	}
	if _, err := os.Stat(chromiumPath); err != nil {
		t.Fatalf("Chromium is needed at %s (install the chromium package): %v", chromiumPath, err)
	}
	mgr, err := template.New(t.TempDir(), template.Options{Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	tmpl, err := mgr.Get("documentation")
	if err != nil {
		t.Fatal(err)
	}
	tmpl.Config.AutoConfirm = true
	tmpl.Config.MaxWorkers = 2
	for _, stopAfter := range []string{engine.EventWorkerSpawned, engine.EventWorkerStarted, engine.EventWorkerCompleted} {
		t.Run("after "+stopAfter, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
			defer cancel()
			host, _, err := hosts.StartSimulator(ctx, simulator.InstanceOptions{ChromePath: chromiumPath,
				Simulator: simulator.Options{Speed: 20, Logger: quiet}}, claude.Options{Logger: quiet})
			if err != nil {
				t.Fatalf("start the simulator: %v", err)
			}
			defer func() {
				sctx, scancel := context.WithTimeout(context.Background(), 30*time.Second)
				defer scancel()
				if err := host.Close(sctx); err != nil {
					t.Errorf("close the simulator: %v", err)
				}
			}()
			dbPath := filepath.Join(t.TempDir(), "baton.db")
			open := func(ev engine.Emitter) (*store.Store, *engine.Engine) {
				st, err := store.Open(dbPath, store.WithLogger(quiet))
				if err != nil {
					t.Fatal(err)
				}
				eng, err := engine.New(engine.Options{Store: st, Host: host, Templates: fixed{tmpl}, Emitter: ev, Logger: quiet})
				if err != nil {
					t.Fatal(err)
				}
				return st, eng
			}
			ev := &events{names: map[string]int{}}
			st, eng := open(ev)
			run, err := eng.Create(ctx, engine.CreateRequest{TemplateID: "documentation", Cwd: copyProject(t), Request: "Document this project"})
			if err != nil {
				t.Fatal(err)
			}
			if err := eng.Start(ctx, run.ID); err != nil {
				t.Fatal(err)
			}
			for ev.count(stopAfter) == 0 {
				if ctx.Err() != nil {
					t.Fatalf("no %s event", stopAfter)
				}
				time.Sleep(5 * time.Millisecond)
			}
			sctx, scancel := context.WithTimeout(ctx, 10*time.Second)
			if err := eng.Shutdown(sctx); err != nil {
				t.Fatalf("Shutdown: %v", err)
			}
			scancel()
			_ = st.Close()

			st, eng = open(&events{names: map[string]int{}})
			defer st.Close()
			defer func() {
				sctx, scancel := context.WithTimeout(context.Background(), 30*time.Second)
				defer scancel()
				_ = eng.Shutdown(sctx)
			}()
			if err := eng.RestoreRun(ctx, run.ID); err != nil {
				t.Fatal(err)
			}
			run, err = eng.Wait(ctx, run.ID)
			if err != nil || run.Status != "completed" || run.TasksCompleted != run.TasksTotal {
				t.Fatalf("run %s: %d of %d completed: %v %s", run.Status, run.TasksCompleted, run.TasksTotal, err, run.Error)
			}
			sessions, err := host.List(ctx, true)
			if err != nil {
				t.Fatal(err)
			}
			perTask := map[string]int{}
			for _, s := range sessions {
				if i := strings.Index(string(s.ID), "_worker_"); i >= 0 {
					perTask[string(s.ID)[i+len("_worker_"):]]++
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
		})
	}
}

// startSimRun opens a store and an engine on host and starts a run of tmpl
// on a copy of the sample project. stop shuts the engine down and closes the
// store; defer it before the host is closed.
func startSimRun(ctx context.Context, t *testing.T, host session.Host, tmpl template.Template) (*engine.Engine, *events, store.Run, func()) {
	t.Helper()
	st, err := store.Open(filepath.Join(t.TempDir(), "baton.db"), store.WithLogger(quiet))
	if err != nil {
		t.Fatal(err)
	}
	ev := &events{names: map[string]int{}}
	eng, err := engine.New(engine.Options{Store: st, Host: host, Templates: fixed{tmpl}, Emitter: ev, Logger: quiet, Home: t.TempDir()})
	if err != nil {
		st.Close()
		t.Fatal(err)
	}
	stop := func() {
		sctx, scancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer scancel()
		if err := eng.Shutdown(sctx); err != nil {
			t.Errorf("Shutdown: %v", err)
		}
		st.Close()
	}
	run, err := eng.Create(ctx, engine.CreateRequest{TemplateID: "documentation", Cwd: copyProject(t), Request: "Document this project"})
	if err != nil {
		stop()
		t.Fatal(err)
	}
	if err := eng.Start(ctx, run.ID); err != nil {
		stop()
		t.Fatal(err)
	}
	return eng, ev, run, stop
}
