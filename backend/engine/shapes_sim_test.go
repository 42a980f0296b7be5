package engine_test

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"testing"
	"time"

	"github.com/baton-app/baton/backend/claude"
	"github.com/baton-app/baton/backend/hosts"
	"github.com/baton-app/baton/backend/session"
	"github.com/baton-app/baton/backend/simulator"
	"github.com/baton-app/baton/backend/template"
)

// TestSimulatorRealShapes runs a whole run through real Chromium and the
// simulator page in the shapes the real Claude Desktop is reported to use
// (results wrapped with camelCase fields, no turnRunning, messages split
// over lines with partial usage, ISO dates, raw events with the CLI's
// UUID, worktrees, queued messages, retitled sessions, getTranscriptTail).
// Each turn must end at its result (the inactivity timeout is far away),
// and the run's cost and tokens must be what the transcripts say.
func TestSimulatorRealShapes(t *testing.T) {
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
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	host, _, err := hosts.StartSimulator(ctx, simulator.InstanceOptions{ChromePath: chromiumPath,
		Simulator: simulator.Options{Speed: 50, Logger: quiet, Shapes: simulator.AllShapes()}}, claude.Options{Logger: quiet})
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
	tmpl.Config.InactivityTimeout = 600 // minutes: a missed turn end shows as a hang, not a retry
	started := time.Now()
	eng, _, run, stop := startSimRun(ctx, t, host, tmpl)
	defer stop()
	if _, err := eng.Wait(ctx, run.ID); err != nil {
		snap, _ := eng.Snapshot(context.Background(), run.ID)
		t.Fatalf("Wait: %v (run is %s: %s)", err, snap.Run.Status, snap.Run.Message)
	}
	snap, err := eng.Snapshot(ctx, run.ID)
	if err != nil {
		t.Fatal(err)
	}
	if s := snap.Run; s.Status != "completed" || s.TasksTotal == 0 || s.TasksCompleted != s.TasksTotal {
		t.Fatalf("run %s: %d of %d completed: %s", s.Status, s.TasksCompleted, s.TasksTotal, s.Error)
	}
	t.Logf("the run took %s", time.Since(started).Round(time.Millisecond))

	// What the transcripts say: each turn's cost in its wrapped result,
	// each message's output once, at its largest count.
	sessions, err := host.List(ctx, true)
	if err != nil {
		t.Fatal(err)
	}
	var cost float64
	var out, in int64
	for _, s := range sessions {
		b, err := host.Read(ctx, s.ID, session.Cursor{})
		if err != nil {
			t.Fatal(err)
		}
		msgOut := map[string]int64{}
		msgIn := map[string]int64{}
		for _, raw := range b.Entries {
			var e struct {
				Type    string `json:"type"`
				Message struct {
					Type  string `json:"type"`
					ID    string `json:"id"`
					Usage struct {
						In  int64 `json:"input_tokens"`
						Out int64 `json:"output_tokens"`
					} `json:"usage"`
					Since map[string]struct {
						CostUSD float64 `json:"costUSD"`
					} `json:"modelUsageSinceLastResult"`
				} `json:"message"`
			}
			if err := json.Unmarshal(raw, &e); err != nil {
				t.Fatal(err)
			}
			switch {
			case e.Message.Type == "result":
				for _, m := range e.Message.Since {
					cost += m.CostUSD
				}
			case e.Type == "assistant":
				msgOut[e.Message.ID] = max(msgOut[e.Message.ID], e.Message.Usage.Out)
				msgIn[e.Message.ID] = max(msgIn[e.Message.ID], e.Message.Usage.In)
			}
		}
		for id := range msgOut {
			out += msgOut[id]
			in += msgIn[id]
		}
	}
	if cost == 0 || math.Abs(snap.Run.CostUSD-cost) > 1e-6 {
		t.Errorf("run cost $%v, the wrapped results say $%v", snap.Run.CostUSD, cost)
	}
	if snap.Run.OutputTokens != out || snap.Run.InputTokens != in {
		t.Errorf("run tokens %d in, %d out; the transcripts say %d, %d (each message once, at its largest count)", snap.Run.InputTokens, snap.Run.OutputTokens, in, out)
	}
}
