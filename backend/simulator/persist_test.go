package simulator

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/baton-app/baton/backend/agent/agenttest"
)

// A simulator started again on its StateDir has its sessions back, with
// their transcripts, and plays again the turn an exit cut short.
func TestSessionsSurviveARestart(t *testing.T) {
	t.Parallel()
	state := t.TempDir()
	s, base := newSim(t, Options{StateDir: state})
	dir := agenttest.Project(t)
	id := start(t, base, map[string]any{"cwd": dir, "sessionId": "local___orch_r1_worker_task_001",
		"message": `Do it; answer {"phase": "completion"}`})
	done := waitResult(t, base, id, 1)
	// The second session's turn never ends (a rule of this simulator
	// only); then the "kill": the state on disk is all the next simulator
	// gets.
	if err := s.SetScenario("_task_002", "worker-hangs"); err != nil {
		t.Fatal(err)
	}
	start(t, base, map[string]any{"cwd": dir, "sessionId": "local___orch_r1_worker_task_002",
		"message": `Do it; answer {"phase": "completion"}`})
	for _, name := range []string{"local___orch_r1_worker_task_001", "local___orch_r1_worker_task_002"} {
		if _, err := os.Stat(filepath.Join(state, name+".jsonl")); err != nil {
			t.Fatalf("no transcript file for %s: %v", name, err)
		}
	}
	s2, err := New(Options{StateDir: state, Speed: 1000, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	if err := s2.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = s2.Shutdown(ctx)
	})
	tokens.Store(s2.base, s2.token)
	again := waitResult(t, s2.base, id, 1)
	if len(again) != len(done) {
		t.Errorf("the finished session has %d entries after the restart, want %d", len(again), len(done))
	}
	entries := waitResult(t, s2.base, "local___orch_r1_worker_task_002", 1)
	body, _ := parseBlock(finalText(entries))
	if !strings.Contains(body, `"success"`) {
		t.Errorf("the turn cut short was not played again to its end: %s", body)
	}
	_ = s
}
