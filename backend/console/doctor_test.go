package console

import (
	"bytes"
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/baton-app/baton/backend/claude"
	"github.com/baton-app/baton/backend/claudecodetest"
	"github.com/baton-app/baton/backend/hosts"
	"github.com/baton-app/baton/backend/simulator"
	"github.com/baton-app/baton/backend/testsupport"
)

// TestDoctorFindsTheSimulator runs "baton doctor" against the endpoint of
// the in-process simulator host.
func TestDoctorFindsTheSimulator(t *testing.T) {
	testsupport.NeedChromium(t)
	const chromiumPath = "/usr/bin/chromium"
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	h, in, err := hosts.StartSimulator(ctx, simulator.InstanceOptions{
		Simulator:  simulator.Options{Speed: 200, Logger: slog.New(slog.DiscardHandler)},
		ChromePath: chromiumPath,
	}, claude.Options{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close(context.Background())

	// "baton doctor --cdp" finds the simulator with the default patterns.
	var out, errOut bytes.Buffer
	if code := DoctorCLI([]string{"--cdp", in.Endpoint(), "--chrome", chromiumPath}, &out, &errOut); code != 0 {
		t.Fatalf("doctor exit %d:\n%s%s", code, out.String(), errOut.String())
	}
	if !strings.Contains(out.String(), "all methods present") {
		t.Fatalf("doctor output:\n%s", out.String())
	}

}

func TestDoctorClosedPort(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.NotFoundHandler())
	dead := srv.URL
	srv.Close()
	var out, errOut bytes.Buffer
	if code := DoctorCLI([]string{"--cdp", dead}, &out, &errOut); code != 1 {
		t.Fatalf("doctor exit %d, want 1", code)
	}
	port := dead[strings.LastIndex(dead, ":")+1:]
	if !strings.Contains(out.String(), "--remote-debugging-port="+port) || !strings.Contains(out.String(), "FAIL endpoint") {
		t.Fatalf("doctor output does not explain how to start Claude Desktop:\n%s", out.String())
	}
	if !strings.Contains(out.String(), "ok   git       git ") || !strings.Contains(out.String(), "needs 2.25 or newer") {
		t.Fatalf("doctor does not report the git version:\n%s", out.String())
	}
	if code := DoctorCLI([]string{"extra"}, &out, &errOut); code != 2 {
		t.Fatalf("doctor with an argument: exit %d, want 2", code)
	}
}

// "baton doctor --host sim" starts the simulator Baton embeds and checks
// it, as Settings' Test connection does while the simulator is the host;
// an unknown host is named with the ones there are.
func TestDoctorEmbeddedSimulator(t *testing.T) {
	testsupport.NeedChromium(t)
	t.Setenv("BATON_CONFIG_DIR", t.TempDir())
	var out, errOut bytes.Buffer
	if code := DoctorCLI([]string{"--host", "sim", "--chrome", "/usr/bin/chromium"}, &out, &errOut); code != 0 {
		t.Fatalf("doctor --host sim: exit %d\n%s%s", code, out.String(), errOut.String())
	}
	for _, want := range []string{"ok   chrome", "ok   page", "all methods present", "LocalSessions methods:", "Baton can drive the sessions at http://127.0.0.1:"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("doctor --host sim output lacks %q:\n%s", want, out.String())
		}
	}
	out.Reset()
	errOut.Reset()
	if code := DoctorCLI([]string{"--host", "cloud"}, &out, &errOut); code != 2 || !strings.Contains(errOut.String(), `--host must be sim, desktop or claude-code, not "cloud"`) {
		t.Fatalf("doctor --host cloud: exit %d, stderr %q", code, errOut.String())
	}
}

// "baton doctor" without flags checks the host saved in Settings: here the
// Claude Code CLI (the pinned one, its model a model-sim), not Claude
// Desktop's port.
func TestDoctorChecksTheSavedHost(t *testing.T) {
	bin := claudecodetest.Binary(t)
	config := t.TempDir()
	t.Setenv("BATON_CONFIG_DIR", config)
	t.Setenv("HOME", t.TempDir())
	t.Setenv("ANTHROPIC_BASE_URL", modelSim(t))
	t.Setenv("ANTHROPIC_API_KEY", claudecodetest.APIKey)
	t.Setenv("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
	saved := `{"host": "claude-code", "claudePath": ` + strconv.Quote(bin) + `}`
	if err := os.WriteFile(filepath.Join(config, "settings.json"), []byte(saved), 0o600); err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	if code := DoctorCLI(nil, &out, &errOut); code != 0 {
		t.Fatalf("doctor exit %d:\n%s%s", code, out.String(), errOut.String())
	}
	if !strings.Contains(out.String(), claudecodetest.Version) || strings.Contains(out.String(), "endpoint") || strings.Contains(out.String(), "9222") {
		t.Fatalf("doctor did not check the saved Claude Code CLI:\n%s", out.String())
	}
}
