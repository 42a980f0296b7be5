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

// A worker of the real pinned Claude Code CLI, logged in as a subscriber,
// hits model-sim's usage limit ("You've hit your 5-hour limit · resets
// …"): the run waits for the reset (the engine's clock moved there), the
// worker goes on in the same session and the run finishes without a failed
// or retried task.
func TestUsageLimitThroughTheRealCLI(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the pinned Claude Code CLI; skipped under -short")
	}
	bin := claudecodetest.Binary(t)
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	sim, err := modelsim.New(modelsim.Options{Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	// Every request of task_001's worker session hits the usage limit until
	// the test lifts it.
	if err := sim.SetScenario("task_001", "usage-limit"); err != nil {
		t.Fatal(err)
	}
	if err := sim.Start(); err != nil {
		t.Fatal(err)
	}
	defer sim.Shutdown(context.Background())

	dir := testsupport.Project(t, map[string]string{"README.md": "# shop\n\nA tiny shop.\n", "src/cart.py": "def total(prices):\n    return sum(prices)\n"})
	host, err := claudecode.New(claudecode.Options{Path: bin, StateDir: t.TempDir(), Logger: quiet,
		Env: claudecodetest.Env(t.TempDir(), sim.URL(), "CLAUDE_CODE_OAUTH_TOKEN=sk-ant-oat01-baton-test", "ANTHROPIC_API_KEY=",
			"CLAUDE_CODE_MAX_RETRIES=0", "API_TIMEOUT_MS=30000")})
	if err != nil {
		t.Fatal(err)
	}
	defer host.Close(context.Background())
	st, err := store.Open(filepath.Join(t.TempDir(), "baton.db"), store.WithLogger(quiet))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	tmpls, err := template.New(t.TempDir(), template.Options{Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	clock := &testClock{t: time.Now()}
	eng, err := engine.New(engine.Options{Store: st, Host: host, Templates: tmpls, Logger: quiet, Now: clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_ = eng.Shutdown(ctx)
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	// No timeouts: the clock jumps to the reset.
	zero, one := 0, 1
	run, err := eng.Create(ctx, engine.CreateRequest{TemplateID: "documentation", Cwd: dir, Request: "Document the shop",
		Overrides: &engine.Overrides{MaxWorkers: &one, WorkerTimeout: &zero, InactivityTimeout: &zero}})
	if err != nil {
		t.Fatal(err)
	}
	if err := eng.Start(ctx, run.ID); err != nil {
		t.Fatal(err)
	}
	var snap engine.Snapshot
	waitFor := func(what string, cond func(engine.Snapshot) bool) {
		t.Helper()
		for {
			s, err := eng.Snapshot(ctx, run.ID)
			if err == nil && cond(s) {
				snap = s
				return
			}
			if err == nil && (s.Run.Status == "error" || s.Run.Status == "cancelled") {
				t.Fatalf("waiting for %s: the run is %s: %s", what, s.Run.Status, s.Run.Error)
			}
			if ctx.Err() != nil {
				t.Fatalf("timed out waiting for %s (run %s: %s)", what, s.Run.Status, s.Run.Message)
			}
			time.Sleep(200 * time.Millisecond)
		}
	}
	waitFor("the plan or the limit", func(s engine.Snapshot) bool {
		return s.Run.Status == "confirming" || s.Run.Limits.WaitingUntil != nil
	})
	if snap.Run.Status == "confirming" {
		if err := eng.Confirm(ctx, run.ID, engine.Modifications{}); err != nil {
			t.Fatal(err)
		}
	}
	waitFor("the usage limit", func(s engine.Snapshot) bool { return s.Run.Limits.WaitingUntil != nil })
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
