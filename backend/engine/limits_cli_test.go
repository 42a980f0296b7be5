package engine_test

import (
	"context"
	"io"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/baton-app/baton/backend/claudecode"
	"github.com/baton-app/baton/backend/claudecodetest"
	"github.com/baton-app/baton/backend/engine"
	"github.com/baton-app/baton/backend/limits"
	"github.com/baton-app/baton/backend/modelsim"
	"github.com/baton-app/baton/backend/store"
	"github.com/baton-app/baton/backend/template"
	"github.com/baton-app/baton/backend/testsupport"
)

type testClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *testClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *testClock) Set(t time.Time) {
	c.mu.Lock()
	c.t = t
	c.mu.Unlock()
}

// cliRig is an engine whose host is the real pinned Claude Code CLI, with
// model-sim as its model, a store and templates, all under t.TempDir().
type cliRig struct {
	t     *testing.T
	sim   *modelsim.Server
	host  *claudecode.Host
	st    *store.Store
	eng   *engine.Engine
	dir   string
	clock *testClock
	home  string
	quiet *slog.Logger
}

// newCLIRig starts model-sim (at addr; any port when empty), the CLI host
// with env added to the test CLI's environment, and an engine (tune
// changes its options) on a small project.
func newCLIRig(t *testing.T, addr string, env []string, tuneHost func(*claudecode.Options), tune func(*engine.Options)) *cliRig {
	t.Helper()
	if testing.Short() {
		t.Skip("runs the pinned Claude Code CLI; skipped under -short")
	}
	bin := claudecodetest.Binary(t)
	r := &cliRig{t: t, quiet: slog.New(slog.NewTextHandler(io.Discard, nil)), clock: &testClock{t: time.Now()}, home: t.TempDir()}
	r.sim = r.startSim(addr)
	r.dir = testsupport.Project(t, map[string]string{"README.md": "# shop\n\nA tiny shop.\n", "src/cart.py": "def total(prices):\n    return sum(prices)\n"})
	hopts := claudecode.Options{Path: bin, StateDir: t.TempDir(), Logger: r.quiet,
		Env: claudecodetest.Env(r.home, r.sim.URL(), env...)}
	if tuneHost != nil {
		tuneHost(&hopts)
	}
	host, err := claudecode.New(hopts)
	if err != nil {
		t.Fatal(err)
	}
	r.host = host
	t.Cleanup(func() { _ = host.Close(context.Background()) })
	if r.st, err = store.Open(filepath.Join(t.TempDir(), "baton.db"), store.WithLogger(r.quiet)); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = r.st.Close() })
	tmpls, err := template.New(t.TempDir(), template.Options{Logger: r.quiet})
	if err != nil {
		t.Fatal(err)
	}
	opts := engine.Options{Store: r.st, Host: host, Templates: tmpls, Logger: r.quiet, Now: r.clock.Now}
	if tune != nil {
		tune(&opts)
	}
	if r.eng, err = engine.New(opts); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_ = r.eng.Shutdown(ctx)
	})
	return r
}

// startSim starts a model-sim at addr (any loopback port when empty),
// shut down at the end of the test.
func (r *cliRig) startSim(addr string) *modelsim.Server {
	r.t.Helper()
	sim, err := modelsim.New(modelsim.Options{Addr: addr, Logger: r.quiet})
	if err != nil {
		r.t.Fatal(err)
	}
	if err := sim.Start(); err != nil {
		r.t.Fatal(err)
	}
	r.t.Cleanup(func() { _ = sim.Shutdown(context.Background()) })
	return sim
}

// waitFor polls the run's snapshot until cond holds, failing on an error
// or a cancelled run and when ctx ends.
func (r *cliRig) waitFor(ctx context.Context, runID, what string, cond func(engine.Snapshot) bool) engine.Snapshot {
	r.t.Helper()
	for {
		s, err := r.eng.Snapshot(ctx, runID)
		if err == nil && cond(s) {
			return s
		}
		if err == nil && (s.Run.Status == "error" || s.Run.Status == "cancelled") {
			r.t.Fatalf("waiting for %s: the run is %s: %s", what, s.Run.Status, s.Run.Error)
		}
		if ctx.Err() != nil {
			r.t.Fatalf("timed out waiting for %s (run %s: %s)", what, s.Run.Status, s.Run.Message)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// confirmWhenAsked confirms the plan once the run waits for it (or goes
// on when it is past that).
func (r *cliRig) confirmWhenAsked(ctx context.Context, runID string, past func(engine.Snapshot) bool) {
	r.t.Helper()
	snap := r.waitFor(ctx, runID, "the plan", func(s engine.Snapshot) bool { return s.Run.Status == "confirming" || past(s) })
	if snap.Run.Status == "confirming" {
		if err := r.eng.Confirm(ctx, runID, engine.Modifications{}); err != nil {
			r.t.Fatal(err)
		}
	}
}

// A worker of the real pinned Claude Code CLI, logged in as a subscriber,
// hits model-sim's usage limit ("You've hit your 5-hour limit · resets
// …"): the run waits for the reset (the engine's clock moved there), the
// worker goes on in the same session and the run finishes without a failed
// or retried task.
func TestUsageLimitThroughTheRealCLI(t *testing.T) {
	r := newCLIRig(t, "", []string{"CLAUDE_CODE_OAUTH_TOKEN=sk-ant-oat01-baton-test", "ANTHROPIC_API_KEY=",
		"CLAUDE_CODE_MAX_RETRIES=0", "API_TIMEOUT_MS=30000"}, nil, nil)
	// Every request of task_001's worker session hits the usage limit until
	// the test lifts it.
	if err := r.sim.SetScenario("task_001", "usage-limit"); err != nil {
		t.Fatal(err)
	}
	eng, st, sim, clock := r.eng, r.st, r.sim, r.clock
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	// No timeouts: the clock jumps to the reset.
	zero, one := 0, 1
	run, err := eng.Create(ctx, engine.CreateRequest{TemplateID: "documentation", Cwd: r.dir, Request: "Document the shop",
		Overrides: &engine.Overrides{MaxWorkers: &one, WorkerTimeout: &zero, InactivityTimeout: &zero}})
	if err != nil {
		t.Fatal(err)
	}
	if err := eng.Start(ctx, run.ID); err != nil {
		t.Fatal(err)
	}
	limited := func(s engine.Snapshot) bool { return s.Run.Limits.WaitingUntil != nil }
	r.confirmWhenAsked(ctx, run.ID, limited)
	snap := r.waitFor(ctx, run.ID, "the usage limit", limited)
	until := *snap.Run.Limits.WaitingUntil
	if snap.Run.Limits.WaitingFor != string(limits.Usage) {
		t.Errorf("waiting for %q, want a usage limit", snap.Run.Limits.WaitingFor)
	}
	// model-sim resets at the next full hour; the CLI's text names it.
	if want := modelsim.UsageLimitReset(clock.Now()); !until.Equal(want) && !until.Equal(want.Add(time.Hour)) {
		t.Errorf("resumes at %v, want %v", until, want)
	}
	if !strings.HasPrefix(snap.Run.Message, "waiting for the limit, resumes at") {
		t.Errorf("run message %q", snap.Run.Message)
	}
	var session string
	for _, w := range snap.Workers {
		if w.TaskID == "task_001" {
			session = w.SessionID
		}
	}
	if err := sim.SetScenario("task_001", "happy"); err != nil {
		t.Fatal(err)
	}
	time.Sleep(time.Second)
	if s, _ := eng.Snapshot(ctx, run.ID); s.Run.Limits.WaitingUntil == nil {
		t.Fatal("the run stopped waiting before the reset")
	}
	clock.Set(until.Add(time.Second))
	final, err := eng.Wait(ctx, run.ID)
	if err != nil {
		t.Fatal(err)
	}
	if final.Status != "completed" || final.TasksFailed != 0 {
		t.Fatalf("run %s: %d failed: %s", final.Status, final.TasksFailed, final.Error)
	}
	ws, err := st.Workers(ctx, run.ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range ws {
		if w.RetryCount != 0 {
			t.Errorf("%s was retried %d times", w.TaskID, w.RetryCount)
		}
		if w.TaskID == "task_001" && w.SessionID != session {
			t.Errorf("task_001 went on in session %s, not its own %s", w.SessionID, session)
		}
	}
}
