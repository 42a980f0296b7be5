package claude

import (
	"context"
	"log/slog"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/baton-app/baton/backend/session"
	"github.com/baton-app/baton/backend/simulator"
)

// TestStartSimulator runs the in-process simulator host (its own server and
// browser, as "baton sim" does) and drives a session through it; the
// console's TestDoctorFindsTheSimulator runs "baton doctor" against it.
func TestStartSimulator(t *testing.T) {
	t.Parallel()
	needBrowser(t)
	ctx := testCtx(t)
	h, in, err := StartSimulator(ctx, simulator.InstanceOptions{
		Simulator:  simulator.Options{Speed: 200, Logger: slog.New(slog.DiscardHandler)},
		ChromePath: chromiumPath,
	}, Options{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	profile := in.Browser.ProfileDir()
	dir := t.TempDir()
	if err := os.WriteFile(dir+"/README.md", []byte("# x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	id, err := h.Start(ctx, session.StartOptions{Cwd: dir, Message: `answer with "phase": "analysis"`})
	if err != nil {
		t.Fatal(err)
	}
	e := &env{host: h, dir: dir}
	entries := e.waitIdle(t, id)
	if phase, _ := lastBlock(t, entries); phase != "analysis" {
		t.Fatalf("phase = %q", phase)
	}

	sctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := h.Close(sctx); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(profile); !os.IsNotExist(err) {
		t.Fatalf("the simulator's temporary profile %s was left behind (%v)", profile, err)
	}
}

func TestStartAdvice(t *testing.T) {
	t.Parallel()
	tests := map[string]string{
		"darwin":  "open -a Claude --args --remote-debugging-port=9333",
		"windows": "claude.exe --remote-debugging-port=9333",
		"linux":   "--remote-debugging-port=9333",
	}
	for goos, want := range tests {
		got := StartAdvice(goos, "9333")
		if !strings.Contains(got, want) {
			t.Errorf("StartAdvice(%s) = %q, want it to contain %q", goos, got, want)
		}
		// One paragraph, both routes: the flag and the main process debugger.
		if strings.Contains(got, "\n") || !strings.Contains(got, "Enable Main Process Debugger") || !strings.Contains(got, "http://127.0.0.1:9229") {
			t.Errorf("StartAdvice(%s) = %q, want one paragraph with the Developer menu route to port 9229", goos, got)
		}
	}
}
