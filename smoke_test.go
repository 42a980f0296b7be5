//go:build smoke

package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/baton-app/baton/backend/testsupport"
)

// runUnderXvfb starts the built desktop binary in a virtual X display with a
// private D-Bus session and returns its combined output and exit code.
func runUnderXvfb(t *testing.T, env ...string) (string, int) {
	t.Helper()
	bin := os.Getenv("BATON_BINARY")
	if bin == "" {
		t.Fatal("BATON_BINARY must name the built desktop binary; run this test with \"make smoke\"")
	}
	if _, err := os.Stat(bin); err != nil {
		t.Fatalf("the desktop binary is not there (%v); build it with \"make build\"", err)
	}
	for _, tool := range []string{"xvfb-run", "xauth", "dbus-run-session"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s is needed for the desktop smoke test and is not installed; \"make test-deps\" installs it", tool)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "xvfb-run", "-a", "-s", "-screen 0 1280x800x24", "dbus-run-session", "--", bin)
	cmd.Env = append(os.Environ(), "BATON_SMOKE=1", "BATON_CONFIG_DIR="+t.TempDir())
	cmd.Env = append(cmd.Env, env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		t.Fatalf("the desktop binary did not exit within 2 minutes; output:\n%s", out)
	}
	code := 0
	if err != nil {
		exitErr, ok := err.(*exec.ExitError)
		if !ok {
			t.Fatalf("could not run the desktop binary: %v\n%s", err, out)
		}
		code = exitErr.ExitCode()
	}
	return string(out), code
}

// TestDesktopSmoke proves that the webview, the embedded frontend and the Go
// bindings work together: the page calls Ready on start-up and the app quits
// with exit code 0.
func TestDesktopSmoke(t *testing.T) {
	out, code := runUnderXvfb(t)
	if code != 0 {
		t.Fatalf("exit code %d, want 0; output:\n%s", code, out)
	}
	if !strings.Contains(out, "the page called a binding") {
		t.Fatalf("the app exited 0 without reporting that the page called a binding; output:\n%s", out)
	}
}

// TestDesktopSmokeFailsWithoutBinding proves the check can fail: with a
// timeout too short for the page to load, the app must exit non-zero.
func TestDesktopSmokeFailsWithoutBinding(t *testing.T) {
	out, code := runUnderXvfb(t, "BATON_SMOKE_TIMEOUT=1ns")
	if code == 0 {
		t.Fatalf("exit code 0 although the page could not call a binding in time; output:\n%s", out)
	}
	if !strings.Contains(out, "did not call a binding in time") {
		t.Fatalf("the app failed without saying why; output:\n%s", out)
	}
}

// TestDesktopFinishesRestoredRunWithNotification starts a run with
// "baton run" against a standalone simulator, kills it in the worker phase,
// then opens the desktop app on the same configuration: the app restores
// the run, finishes it, and sends a desktop notification naming it (seen by
// dbus-monitor on the app's session bus).
func TestDesktopFinishesRestoredRunWithNotification(t *testing.T) {
	bin := os.Getenv("BATON_BINARY")
	if bin == "" {
		t.Fatal("BATON_BINARY must name the built desktop binary; run this test with \"make smoke\"")
	}
	for _, tool := range []string{"xvfb-run", "xauth", "dbus-run-session", "dbus-monitor", "chromium"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s is needed for this test and is not installed; \"make test-deps\" installs it", tool)
		}
	}
	config := t.TempDir()
	// A copy: the simulator's workers write real files (docs/), which must
	// not land in the fixture other tests copy.
	sample, err := filepath.Abs("backend/console/testdata/sample")
	if err != nil {
		t.Fatal(err)
	}
	project := testsupport.Project(t, testsupport.ReadTree(t, sample, "docs"))

	// The simulator runs on its own, as Claude Desktop would.
	sim := exec.Command(bin, "sim", "--port", "0", "--speed", "2")
	simOut, err := sim.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := sim.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		_ = sim.Process.Signal(os.Interrupt)
		_ = sim.Wait()
	}()
	var endpoint string
	sc := bufio.NewScanner(simOut)
	for sc.Scan() {
		if ep, ok := strings.CutPrefix(sc.Text(), "CDP endpoint: "); ok {
			endpoint = ep
			break
		}
	}
	if endpoint == "" {
		t.Fatal("baton sim printed no endpoint")
	}
	go func() { _, _ = io.Copy(io.Discard, simOut) }()
	settings := fmt.Sprintf(`{"host":"desktop","cdpEndpoint":%q,"headless":true,"pollIntervalMs":2000,"notifications":true,"theme":"system","recentFolders":[]}`, endpoint)
	if err := os.WriteFile(filepath.Join(config, "settings.json"), []byte(settings), 0o600); err != nil {
		t.Fatal(err)
	}

	// Start the run in the terminal and kill it while its workers run.
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	run := exec.CommandContext(ctx, bin, "run", "--template", "documentation", "--cwd", project,
		"--message", "Document the inventory service", "--yes")
	run.Env = append(os.Environ(), "BATON_CONFIG_DIR="+config)
	runOut, err := run.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := run.Start(); err != nil {
		t.Fatal(err)
	}
	started := regexp.MustCompile(`task_\d+ started`)
	killed := false
	sc = bufio.NewScanner(runOut)
	for sc.Scan() {
		if started.MatchString(sc.Text()) {
			_ = run.Process.Kill()
			killed = true
			break
		}
	}
	_ = run.Wait()
	if !killed {
		t.Fatal("baton run ended before its workers started")
	}

	// Open the app on the same configuration, with a monitor on its bus.
	monitor := filepath.Join(t.TempDir(), "notify.log")
	script := `dbus-monitor --session "interface='org.freedesktop.Notifications'" > "$MONITOR" 2>&1 &
m=$!
sleep 1
"$BATON_BIN" > "$APPLOG" 2>&1 &
app=$!
for i in $(seq 1 120); do
  grep -q 'Run finished' "$MONITOR" && break
  sleep 1
done
kill $app $m 2>/dev/null
wait $app 2>/dev/null
true`
	appLog := filepath.Join(t.TempDir(), "app.log")
	app := exec.CommandContext(ctx, "xvfb-run", "-a", "-s", "-screen 0 1280x800x24", "dbus-run-session", "--", "sh", "-c", script)
	app.Env = append(os.Environ(), "BATON_CONFIG_DIR="+config, "BATON_BIN="+bin, "MONITOR="+monitor, "APPLOG="+appLog)
	app.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	app.Cancel = func() error { return syscall.Kill(-app.Process.Pid, syscall.SIGKILL) }
	if out, err := app.CombinedOutput(); err != nil {
		t.Fatalf("running the app: %v\n%s", err, out)
	}
	seen, _ := os.ReadFile(monitor)
	logs, _ := os.ReadFile(appLog)
	if !strings.Contains(string(seen), "member=Notify") || !strings.Contains(string(seen), "Run finished: Documentation — Document the inventory service") {
		t.Fatalf("no Notify call naming the run was seen on the bus.\nmonitor:\n%s\napp log:\n%s", seen, logs)
	}
}
