package console

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/baton-app/baton/backend/owner"
	"github.com/baton-app/baton/backend/service"
	"github.com/baton-app/baton/backend/testsupport"
	"github.com/baton-app/baton/backend/view"
)

// One list of active runs across the two faces, on the CDP host (baton sim
// in real Chromium): a run that "baton run" drives is listed in the
// window's Runs with that process as its driver, and the window's Cancel
// is refused naming it; Ctrl-C pauses it and lets go of it, the window's
// list shows it paused with nobody driving it (told by runs:changed), and
// the window's Resume takes it up. Then the terminal knows the window
// drives it: "baton cancel" and "baton run --resume" change nothing and say
// so, "baton show" and "baton active" name the window; the run completes in the window with
// one worker session per task.
func TestOneListOfActiveRunsAcrossProcesses(t *testing.T) {
	testsupport.NeedChromium(t)
	bin := buildBaton(t)
	endpoint := startSim(t, bin)
	config := t.TempDir()
	t.Setenv("BATON_CONFIG_DIR", config)
	env := append(os.Environ(), "BATON_CONFIG_DIR="+config)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()

	term, out := startBaton(t, ctx, bin, env, "run", "--host", "desktop", "--cdp", endpoint, "--template", "documentation",
		"--cwd", sample(t), "--message", "Document the sample project", "--yes")
	var runID string
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		if m := runIDPattern.FindStringSubmatch(sc.Text()); m != nil && runID == "" {
			runID = m[1]
		}
		if startedLine.MatchString(sc.Text()) {
			break
		}
	}
	if runID == "" {
		t.Fatal("baton run printed no run id")
	}

	win, err := service.Open(service.Options{Desktop: true, Logger: slog.New(slog.DiscardHandler),
		Host: service.HostOverrides{Host: "desktop", CDP: endpoint}})
	if err != nil {
		t.Fatal(err)
	}
	defer closeServices(win, io.Discard)
	changed := make(chan struct{}, 16)
	win.Events.Subscribe(func(name string, _ any) {
		if name == service.EventRunsChanged {
			select {
			case changed <- struct{}{}:
			default:
			}
		}
	})
	listed := func() view.Run {
		t.Helper()
		runs, err := win.Runs.Active(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range runs {
			if r.ID == runID {
				return r
			}
		}
		t.Fatalf("run %s is not in the window's list of active runs (%d runs)", runID, len(runs))
		return view.Run{}
	}
	d := listed().DrivenBy
	if d == nil || d.Self || d.Face != owner.Terminal || d.PID != term.Process.Pid {
		t.Fatalf("the run baton run (process %d) drives is listed as driven by %+v", term.Process.Pid, d)
	}
	if err := win.Runs.Cancel(ctx, runID); !errors.Is(err, service.ErrDriven) ||
		!strings.Contains(err.Error(), fmt.Sprintf("driven by baton run (process %d)", term.Process.Pid)) {
		t.Fatalf("the window's Cancel of a run the terminal drives: %v", err)
	}

	// Ctrl-C in the terminal: paused, and nobody drives it.
	for len(changed) > 0 {
		<-changed
	}
	_ = term.Process.Signal(os.Interrupt)
	go func() { _, _ = io.Copy(io.Discard, out) }()
	var exit *exec.ExitError
	if err := term.Wait(); !errors.As(err, &exit) || exit.ExitCode() != ExitPaused {
		t.Fatalf("Ctrl-C: %v, want exit code %d", err, ExitPaused)
	}
	select {
	case <-changed:
	case <-time.After(10 * time.Second):
		t.Fatal("the window was not told that the list of runs changed")
	}
	if r := listed(); r.Status != view.RunPaused || r.DrivenBy != nil {
		t.Fatalf("after Ctrl-C the window lists the run %s, driven by %+v", r.Status, r.DrivenBy)
	}
	if err := win.Runs.Resume(ctx, runID); err != nil {
		t.Fatalf("the window's Resume of the run the terminal left: %v", err)
	}
	if d := listed().DrivenBy; d == nil || !d.Self || d.Face != owner.Window || d.PID != os.Getpid() {
		t.Fatalf("after the window's Resume the run is driven by %+v", d)
	}

	// The terminal knows that the window drives it.
	window := fmt.Sprintf("driven by Baton's window (process %d)", os.Getpid())
	for _, args := range [][]string{{"cancel", runID}, {"run", "--resume", runID, "--host", "desktop", "--cdp", endpoint, "--yes"}} {
		cmd := exec.CommandContext(ctx, bin, args...)
		cmd.Env = env
		text, err := cmd.CombinedOutput()
		if !errors.As(err, &exit) || exit.ExitCode() != ExitError || !strings.Contains(string(text), window) ||
			!strings.Contains(string(text), "there, or quit Baton") {
			t.Errorf("baton %s of a run the window drives: %v\n%s", args[0], err, text)
		}
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"show", runID}, "Driven:  by Baton's window (process "},
		{[]string{"active"}, runID + " is " + window + ": act on it there."},
	} {
		cmd := exec.CommandContext(ctx, bin, c.args...)
		cmd.Env = env
		if text, err := cmd.Output(); err != nil || !strings.Contains(string(text), c.want) {
			t.Errorf("baton %s of a run the window drives: %v\n%s", c.args[0], err, text)
		}
	}

	run, err := win.Runs.Wait(ctx, runID)
	if err != nil || run.Status != view.RunCompleted {
		t.Fatalf("the run the window took up: %s %s (%v)", run.Status, run.Error, err)
	}
	assertOneWorkerPerTask(t, endpoint, runID)
	runs, err := win.Runs.Active(ctx)
	if err != nil || len(runs) != 0 {
		t.Fatalf("active runs after it completed: %+v (%v)", runs, err)
	}
}

// startBaton starts the baton binary with args in env (stderr dropped) and
// returns the process and its standard output.
func startBaton(t *testing.T, ctx context.Context, bin string, env []string, args ...string) (*exec.Cmd, io.ReadCloser) {
	t.Helper()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env, cmd.Stderr = env, io.Discard
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd, out
}
