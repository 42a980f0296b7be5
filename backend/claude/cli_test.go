package claude

import (
	"bytes"
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/baton-app/baton/backend/engine"
	"github.com/baton-app/baton/backend/simulator"
)

// TestStartSimulatorAndDoctor runs the in-process simulator host (its own
// server and browser, as "baton sim" does), drives a session through it, and
// runs "baton doctor" against its endpoint.
func TestStartSimulatorAndDoctor(t *testing.T) {
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
	id, err := h.Start(ctx, engine.StartOptions{Cwd: dir, Message: `answer with "phase": "analysis"`})
	if err != nil {
		t.Fatal(err)
	}
	e := &env{host: h, dir: dir}
	entries := e.waitIdle(t, id)
	if phase, _ := lastBlock(t, entries); phase != "analysis" {
		t.Fatalf("phase = %q", phase)
	}

	// "baton doctor --cdp" finds the simulator with the default patterns.
	var out, errOut bytes.Buffer
	if code := RunDoctor([]string{"--cdp", in.Endpoint(), "--chrome", chromiumPath}, &out, &errOut); code != 0 {
		t.Fatalf("doctor exit %d:\n%s%s", code, out.String(), errOut.String())
	}
	if !strings.Contains(out.String(), "all methods present") {
		t.Fatalf("doctor output:\n%s", out.String())
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

func TestDoctorClosedPort(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.NotFoundHandler())
	dead := srv.URL
	srv.Close()
	var out, errOut bytes.Buffer
	if code := RunDoctor([]string{"--cdp", dead}, &out, &errOut); code != 1 {
		t.Fatalf("doctor exit %d, want 1", code)
	}
	port := dead[strings.LastIndex(dead, ":")+1:]
	if !strings.Contains(out.String(), "--remote-debugging-port="+port) || !strings.Contains(out.String(), "FAIL endpoint") {
		t.Fatalf("doctor output does not explain how to start Claude Desktop:\n%s", out.String())
	}
	if code := RunDoctor([]string{"extra"}, &out, &errOut); code != 2 {
		t.Fatalf("doctor with an argument: exit %d, want 2", code)
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
		if got := StartAdvice(goos, "9333"); !strings.Contains(got, want) {
			t.Errorf("StartAdvice(%s) = %q, want it to contain %q", goos, got, want)
		}
	}
}
