package console

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/baton-app/baton/backend/testsupport"
)

// startSimGroup runs "baton sim" in its own process group, so that the test
// can kill it together with its Chromium, and returns its CDP endpoint and
// the kill.
func startSimGroup(t *testing.T, bin string) (endpoint string, kill func()) {
	t.Helper()
	return startSimGroupAt(t, bin, "0")
}

// startSimGroupAt is startSimGroup on port (a number; "0": any free one).
func startSimGroupAt(t *testing.T, bin, port string) (endpoint string, kill func()) {
	t.Helper()
	// A simulator started again on the port of one just killed may find the
	// port not free yet and exit at once: it is started again, a few times,
	// and its own words are shown when it never comes up.
	var why string
	for range 5 {
		ep, kill, exited, stderr := trySim(t, bin, sim{port: port, group: true})
		if !exited {
			return ep, kill
		}
		why = stderr
		time.Sleep(time.Second)
	}
	t.Fatalf("baton sim on port %s ended at every start:\n%s", port, why)
	return "", nil
}

var interruptedLine = regexp.MustCompile(`(?m)^Interrupted: .*unreachable`)

// TestHostKilledMidRunInterruptsAndResumes kills the host ("baton sim" and
// its Chromium) while workers run: "baton run" shows reconnecting and ends
// the run interrupted within the configured bound (exit 1, everything done
// kept); "baton run --resume" on a fresh simulator, which has none of the old
// sessions, finishes every task and the aggregation.
func TestHostKilledMidRunInterruptsAndResumes(t *testing.T) {
	testsupport.NeedChromium(t)
	bin := buildBaton(t)
	endpoint, killSim := startSimGroup(t, bin)
	project := sample(t)
	config := t.TempDir()
	const bound = 3 * time.Second
	if err := os.WriteFile(filepath.Join(config, "settings.json"), []byte(`{"reconnectForSeconds": 3}`), 0o600); err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), "BATON_CONFIG_DIR="+config)

	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	first := exec.CommandContext(ctx, bin, "run", "--host", "desktop", "--cdp", endpoint, "--template", "documentation",
		"--cwd", project, "--message", "Document the sample project", "--yes")
	first.Env = env
	out, err := first.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	first.Stderr = io.Discard
	if err := first.Start(); err != nil {
		t.Fatal(err)
	}
	var runID string
	var all strings.Builder
	sc := bufio.NewScanner(out)
	var killedAt time.Time
	for sc.Scan() {
		line := sc.Text()
		all.WriteString(line + "\n")
		if m := runIDPattern.FindStringSubmatch(line); m != nil && runID == "" {
			runID = m[1]
		}
		if startedLine.MatchString(line) {
			killSim()
			killedAt = time.Now()
			break
		}
	}
	if killedAt.IsZero() {
		_ = first.Wait()
		t.Fatalf("the run did not reach the worker phase:\n%s", all.String())
	}
	for sc.Scan() {
		all.WriteString(sc.Text() + "\n")
	}
	err = first.Wait()
	took := time.Since(killedAt)
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != ExitInterrupted {
		t.Fatalf("baton run after the host died: %v, want exit code %d; output:\n%s", err, ExitInterrupted, all.String())
	}
	// Noticed at once, then the bound; a little more for the process to end.
	if took > bound+10*time.Second {
		t.Errorf("the run took %s to end after the host died (bound %s)", took.Round(time.Millisecond), bound)
	}
	text := all.String()
	if !strings.Contains(text, "reconnecting: Reconnecting to the session host") || !interruptedLine.MatchString(text) ||
		!strings.Contains(text, "Continue it with: baton run --resume "+runID) {
		t.Fatalf("the output does not show reconnecting and the interrupt:\n%s", text)
	}
	var history bytes.Buffer
	show := exec.Command(bin, "show", runID)
	show.Env, show.Stdout = env, &history
	if err := show.Run(); err != nil || !strings.Contains(history.String(), "Status:  interrupted") {
		t.Fatalf("the run is not stored as interrupted (%v):\n%s", err, history.String())
	}

	fresh, _ := startSimGroup(t, bin)
	rctx, rcancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer rcancel()
	resume := exec.CommandContext(rctx, bin, "run", "--resume", runID, "--host", "desktop", "--cdp", fresh, "--yes")
	resume.Env = env
	res, err := resume.CombinedOutput()
	if err != nil {
		t.Fatalf("resume %s on a fresh host: %v\n%s", runID, err, res)
	}
	m := regexp.MustCompile(`Run \S+ completed: (\d+) of (\d+) tasks? completed`).FindStringSubmatch(string(res))
	if m == nil || m[1] != m[2] || m[1] == "0" || mentionsFailure(string(res)) {
		t.Fatalf("the resumed run did not complete every task:\n%s", res)
	}
	history.Reset()
	show = exec.Command(bin, "show", runID)
	show.Env, show.Stdout = env, &history
	if err := show.Run(); err != nil || !strings.Contains(history.String(), "Status:  completed") {
		t.Fatalf("the resumed run is not stored as completed (%v):\n%s", err, history.String())
	}
	if !strings.Contains(strings.ToLower(history.String()), "aggregation") {
		t.Fatalf("the resumed run shows no aggregation:\n%s", history.String())
	}
}

// A host that comes back without the main session after every task
// completed (on the CDP host: "baton sim" and its Chromium killed while
// the run aggregates, a fresh one started on the same port within the
// bound): the same "baton run" reconnects, a new main session aggregates
// with a summary of the run so far, and the run completes, never error.
func TestHostBackWithoutMainSessionAggregates(t *testing.T) {
	testsupport.NeedChromium(t)
	bin := buildBaton(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	_ = ln.Close()
	endpoint, killSim := startSimGroupAt(t, bin, port)
	config := t.TempDir()
	if err := os.WriteFile(filepath.Join(config, "settings.json"), []byte(`{"reconnectForSeconds": 90}`), 0o600); err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), "BATON_CONFIG_DIR="+config)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	run, out := startBaton(t, ctx, bin, env, "run", "--host", "desktop", "--cdp", endpoint, "--template", "documentation",
		"--cwd", sample(t), "--message", "Document the sample project", "--yes")
	var all strings.Builder
	sc := bufio.NewScanner(out)
	restarted := false
	for sc.Scan() {
		all.WriteString(sc.Text() + "\n")
		if !restarted && strings.Contains(sc.Text(), "phase aggregation (aggregating)") {
			killSim()
			startSimGroupAt(t, bin, port)
			restarted = true
		}
	}
	err = run.Wait()
	text := all.String()
	if !restarted {
		t.Fatalf("the run did not reach its aggregation (%v):\n%s", err, text)
	}
	m := regexp.MustCompile(`Run (\S+) completed: (\d+) of (\d+) tasks completed`).FindStringSubmatch(text)
	if err != nil || m == nil || m[2] != m[3] {
		t.Fatalf("baton run with the host back without its main session: %v\n%s", err, text)
	}
	var history bytes.Buffer
	show := exec.Command(bin, "show", m[1])
	show.Env, show.Stdout = env, &history
	if err := show.Run(); err != nil || !strings.Contains(history.String(), "Status:  completed") ||
		!strings.Contains(history.String(), "Result (aggregation ") {
		t.Fatalf("the run is not stored as completed with its aggregation (%v):\n%s", err, history.String())
	}
}
