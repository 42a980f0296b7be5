package console

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/baton-app/baton/backend/engine"
	"github.com/baton-app/baton/backend/service"
	"github.com/baton-app/baton/backend/store"
)

const runUsage = `usage: baton run --template ID --message TEXT [--cwd DIR] [--var K=V]... [--yes]
                 [--permission-mode MODE] [--host sim|desktop|claude-code] [--cdp URL]
                 [--claude PATH] [--scenario NAME] [--isolation worktree|shared] [--apply]
       baton run --resume RUN_ID [--yes] [--apply] [--host sim|desktop|claude-code] [--cdp URL] [--claude PATH]

Runs a whole orchestration without a window and shows its progress. What the
run waits for is asked on the terminal: the task list (unless --yes),
workers' questions, permission prompts, and reviews the template leaves to
you. --permission-mode sets the workers' mode for this run (default,
acceptEdits, plan or bypassPermissions). With --host claude-code every session
is a Claude Code CLI process (claude on PATH, or --claude PATH) that inherits
this environment: your login or ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL, proxies.
With worktree isolation (the template's, or --isolation worktree) every worker
works in its own git worktree and the results land on the branch baton/RUN_ID;
the end prints each task's changed files and the command that merges the
branch, and --apply merges it into your current branch (refused, changing
nothing, when your uncommitted changes touch the same files).
Exit codes: 0 every task completed, 2 finished with failed or skipped tasks
(or the settings file cannot be used and no --host was given), 1 error or an
interrupted run (continue it with --resume), 130 Ctrl-C and 143 SIGTERM (also
while a question waits: the run is paused; continue it with --resume).
`

// signalContext returns a context that ends on Ctrl-C or SIGTERM, its stop
// function, and the exit code for the signal that ended it (130 for
// Ctrl-C, 143 for SIGTERM).
func signalContext() (context.Context, context.CancelFunc, func() int) {
	ctx, cancel := context.WithCancel(context.Background())
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	var code atomic.Int32
	code.Store(ExitPaused)
	go func() {
		select {
		case s := <-sigs:
			if s == syscall.SIGTERM {
				code.Store(ExitTerminated)
			}
			cancel()
		case <-ctx.Done():
		}
	}()
	stop := func() {
		signal.Stop(sigs)
		cancel()
	}
	return ctx, stop, func() int { return int(code.Load()) }
}

// closeServices closes services that were opened but not used.
func closeServices(svc *service.Services, stderr io.Writer) {
	cctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := svc.Close(cctx); err != nil {
		fmt.Fprintf(stderr, "baton run: while stopping: %v\n", err)
	}
}

// projectFolder checks --cwd: a non-empty path to a folder that exists. A
// file, a missing path and an empty value each get their own sentence.
func projectFolder(cwd string) (string, error) {
	if strings.TrimSpace(cwd) == "" {
		return "", errors.New("--cwd is empty; give the project folder (or leave --cwd out for the current folder)")
	}
	dir, err := filepath.Abs(cwd)
	if err != nil {
		return "", fmt.Errorf("the folder %s cannot be used: %v", sanitize(cwd), err)
	}
	st, err := os.Stat(dir)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return "", fmt.Errorf("the folder %s does not exist", sanitize(dir))
	case err != nil:
		return "", fmt.Errorf("the folder %s cannot be used: %v", sanitize(dir), err)
	case !st.IsDir():
		return "", fmt.Errorf("%s is a file, not a folder; --cwd takes the project folder", sanitize(dir))
	}
	return dir, nil
}

type varFlags map[string]any

func (v varFlags) String() string { return "" }

func (v varFlags) Set(s string) error {
	k, val, ok := strings.Cut(s, "=")
	if !ok || strings.TrimSpace(k) == "" {
		return fmt.Errorf("--var takes NAME=VALUE, not %q", s)
	}
	v[strings.TrimSpace(k)] = val
	return nil
}

// RunCLI is "baton run". Stdin answers the confirmation question and what
// the run waits for (attention).
func RunCLI(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	stdout, stderr = safe(stdout), safe(stderr)
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	tmpl := fs.String("template", "", "template id")
	cwd := fs.String("cwd", ".", "project folder")
	message := fs.String("message", "", "the request")
	yes := fs.Bool("yes", false, "confirm the task list without asking")
	host := fs.String("host", "", "sim, desktop or claude-code (default: the host in Settings)")
	cdp := fs.String("cdp", "", "Claude Desktop's DevTools endpoint (implies --host desktop)")
	claudePath := fs.String("claude", "", "the Claude Code CLI to run (implies --host claude-code)")
	scenario := fs.String("scenario", "", "simulator scenario")
	speed := fs.Float64("sim-speed", 1, "simulator speed factor")
	resume := fs.String("resume", "", "continue a paused or interrupted run")
	permission := fs.String("permission-mode", "", "the workers' permission mode for this run")
	isolation := fs.String("isolation", "", "worktree or shared for this run (default: the template's)")
	apply := fs.Bool("apply", false, "merge the run's branch into the current branch at the end")
	vars := varFlags{}
	fs.Var(vars, "var", "template variable NAME=VALUE (repeatable)")
	if err := fs.Parse(args); err != nil {
		fmt.Fprintf(stderr, "baton run: %v\n\n%s", err, runUsage)
		return ExitError
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "baton run: unexpected argument %q\n\n%s", fs.Arg(0), runUsage)
		return ExitError
	}
	if *resume == "" && (*tmpl == "" || strings.TrimSpace(*message) == "") {
		fmt.Fprintf(stderr, "baton run needs --template and --message (or --resume RUN_ID).\n\n%s", runUsage)
		return ExitError
	}
	dir, err := projectFolder(*cwd)
	if err != nil && *resume == "" {
		fmt.Fprintf(stderr, "baton run: %v\n", err)
		return ExitError
	}

	// Ctrl-C and SIGTERM end ctx at once, also while a question waits for
	// a line; the run is then paused and the exit code says which signal.
	ctx, stop, signalled := signalContext()
	defer stop()

	view := newProgress(stdout)
	svc, err := service.Open(service.Options{Logger: quietLogger(stderr),
		Host: service.HostOverrides{Host: *host, CDP: *cdp, Claude: *claudePath, Scenario: *scenario, Speed: *speed}})
	if err != nil {
		fmt.Fprintf(stderr, "baton run: %v\n", err)
		return ExitError
	}
	if problem := svc.Settings.Problem(); problem != nil {
		// A settings file Baton cannot use is named with what is wrong;
		// the run does not silently fall back to another host.
		fmt.Fprintf(stderr, "baton run: %v\n", problem)
		if *host == "" && *cdp == "" {
			fmt.Fprintln(stderr, "baton run: the host cannot be chosen from the settings; give --host sim or --host desktop, or fix the file.")
			closeServices(svc, stderr)
			return ExitSettings
		}
	}
	defer func() {
		cctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		if err := svc.Close(cctx); err != nil {
			fmt.Fprintf(stderr, "baton run: while stopping: %v\n", err)
		}
	}()
	events := make(chan evt, 1024)
	svc.Events.Subscribe(func(name string, payload any) {
		p, ok := payload.(engine.Payload)
		if !ok {
			return // not the engine's
		}
		select {
		case events <- evt{name, p}:
		default: // the display is behind; the snapshot at the end is complete
		}
	})

	var runID string
	if *resume != "" {
		runID = *resume
		if err := svc.Engine.RestoreRun(ctx, runID); err != nil {
			fmt.Fprintf(stderr, "baton run: cannot resume %s: %v\n", runID, err)
			return ExitError
		}
		if snap, err := svc.Engine.Snapshot(ctx, runID); err == nil && (snap.Run.Status == engine.RunPaused.String() || snap.Run.Status == engine.RunInterrupted.String()) {
			if err := svc.Engine.Resume(ctx, runID); err != nil {
				fmt.Fprintf(stderr, "baton run: cannot resume %s: %v\n", runID, err)
				return ExitError
			}
		}
		fmt.Fprintf(stdout, "Resuming %s\n", runID)
	} else {
		// A host that cannot be used refuses the start before anything
		// is stored: no run is left in the history for it.
		if _, err := svc.Hosts.Host(ctx); err != nil {
			fmt.Fprintf(stderr, "baton run: %v\nNothing was started or stored.\n", err)
			return ExitError
		}
		req := engine.CreateRequest{TemplateID: *tmpl, Cwd: dir, Request: *message, Variables: vars}
		if *permission != "" {
			req.Overrides = &engine.Overrides{PermissionMode: permission}
		}
		if *isolation != "" {
			if req.Overrides == nil {
				req.Overrides = &engine.Overrides{}
			}
			req.Overrides.Isolation = isolation
		}
		run, err := svc.Engine.Create(ctx, req)
		if err != nil {
			createError(err, stderr)
			return ExitError
		}
		runID = run.ID
		fmt.Fprintf(stdout, "Run %s: %s in %s (host: %s)\n", run.ID, run.TemplateName, run.Cwd, svc.Hosts.Status().Label)
		if err := svc.Engine.Start(ctx, runID); err != nil {
			fmt.Fprintf(stderr, "baton run: %v\n", err)
			return ExitError
		}
	}

	answers := newLineReader(stdin)
	attend := newAttention(svc.Engine, svc.Hosts, runID, stdin, answers, stdout)
	// Events may be dropped when the display is behind: look again now and then.
	recheck := time.NewTicker(time.Second)
	defer recheck.Stop()
	finished := make(chan store.Run, 1)
	var waiting sync.WaitGroup
	defer func() { stop(); waiting.Wait() }() // ends the wait before the services close
	waiting.Go(func() {
		run, err := svc.Engine.Wait(ctx, runID)
		if err == nil {
			finished <- run
		}
		close(finished)
	})

	for {
		select {
		case <-ctx.Done():
			stop()
			pctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			err := svc.Engine.Pause(pctx, runID)
			cancel()
			if err != nil && !errors.Is(err, engine.ErrIllegalTransition) {
				fmt.Fprintf(stderr, "\nbaton run: could not pause %s: %v\n", runID, err)
			}
			fmt.Fprintf(stdout, "\nPaused %s. Continue it with: baton run --resume %s\n", runID, runID)
			return signalled()
		case e := <-events:
			view.event(e)
			switch e.name {
			case engine.EventTasksReady, engine.EventTasksInvalid:
				if code, done := confirm(ctx, svc, runID, e, *yes, answers, stdout, stderr); done {
					return code
				}
			case engine.EventWorkerQuestion, engine.EventWorkerAwaitingReview, engine.EventWorkerWaiting:
				attend.check(ctx)
			}
		case <-recheck.C:
			attend.check(ctx)
		case run, ok := <-finished:
			if !ok {
				continue // ctx ended; the next loop pauses
			}
			drain(view, events)
			return worktreeSummary(ctx, svc, run.ID, *apply, summary(ctx, svc, run, stdout), stdout, stderr)
		}
	}
}

type evt struct {
	name string
	p    engine.Payload
}

func drain(view *progress, events chan evt) {
	for {
		select {
		case e := <-events:
			view.event(e)
		default:
			return
		}
	}
}

// confirm shows the proposed tasks and asks for confirmation when the run
// waits for it. It reports done with an exit code when the command ends.
func confirm(ctx context.Context, svc *service.Services, runID string, e evt, yes bool, answers *lineReader, stdout, stderr io.Writer) (int, bool) {
	snap, err := svc.Engine.Snapshot(ctx, runID)
	if err != nil || snap.Run.Status != engine.RunConfirming.String() {
		return 0, false
	}
	if e.name == engine.EventTasksInvalid {
		fmt.Fprintf(stderr, "The proposed task list cannot be used: %s\n", strings.Join(e.p.Problems, "; "))
		fmt.Fprintf(stderr, "Fix it in Baton's window (Runs → %s), or cancel the run there.\n", runID)
		return ExitError, true
	}
	fmt.Fprintf(stdout, "\nProposed tasks (%d):\n", len(snap.Tasks))
	for _, group := range snap.ParallelGroups {
		for _, id := range group {
			for _, t := range snap.Tasks {
				if t.ID == id {
					deps := ""
					if len(t.Dependencies) > 0 {
						deps = " after " + strings.Join(t.Dependencies, ", ")
					}
					fmt.Fprintf(stdout, "  %-10s p%-2d %s%s\n", t.ID, t.Priority, t.Title, deps)
				}
			}
		}
	}
	if !yes {
		fmt.Fprint(stdout, "Start these tasks? [y/N] ")
		line, _ := answers.ReadLine(ctx)
		if ctx.Err() != nil {
			return 0, false // the command pauses the run
		}
		if a := strings.ToLower(strings.TrimSpace(line)); a != "y" && a != "yes" {
			if err := svc.Engine.Cancel(ctx, runID); err != nil {
				fmt.Fprintf(stderr, "baton run: cancel %s: %v\n", runID, err)
			}
			// A refused plan started nothing: the run leaves no entry in
			// the history.
			if _, err := svc.Engine.Wait(ctx, runID); err == nil {
				if err := svc.Store.DeleteRun(ctx, runID); err != nil {
					fmt.Fprintf(stderr, "baton run: remove %s from the history: %v\n", runID, err)
				}
			}
			fmt.Fprintf(stdout, "Cancelled %s; nothing was started, and it is not kept in the history.\n", runID)
			return ExitError, true
		}
	}
	if err := svc.Engine.Confirm(ctx, runID, engine.Modifications{}); err != nil {
		fmt.Fprintf(stderr, "baton run: %v\n", err)
		return ExitError, true
	}
	return 0, false
}

// summary prints how the run ended and returns the exit code.
func summary(ctx context.Context, svc *service.Services, run store.Run, stdout io.Writer) int {
	snap, err := svc.Engine.Snapshot(ctx, run.ID)
	if err != nil {
		snap = engine.Snapshot{Run: run}
	}
	r := snap.Run
	fmt.Fprintf(stdout, "\nRun %s %s: %d of %d tasks completed", r.ID, r.Status, r.TasksCompleted, r.TasksTotal)
	if r.TasksFailed > 0 {
		fmt.Fprintf(stdout, ", %d failed", r.TasksFailed)
	}
	if r.TasksSkipped > 0 {
		fmt.Fprintf(stdout, ", %d skipped", r.TasksSkipped)
	}
	fmt.Fprintf(stdout, ". Tokens %d in / %d out, cost $%.2f.\n", r.InputTokens, r.OutputTokens, r.CostUSD)
	var bad, files []string
	for _, w := range snap.Workers {
		switch {
		case w.Status == "completed" && !w.Skipped:
			files = append(files, w.OutputFiles...)
		case w.Skipped:
			bad = append(bad, fmt.Sprintf("%s skipped: %s", w.TaskID, w.Error))
		default:
			bad = append(bad, fmt.Sprintf("%s %s: %s", w.TaskID, w.Status, w.Error))
		}
	}
	slices.Sort(bad)
	for _, b := range bad {
		fmt.Fprintf(stdout, "  - %s\n", b)
	}
	if len(files) > 0 {
		slices.Sort(files)
		fmt.Fprintf(stdout, "Files: %s\n", strings.Join(slices.Compact(files), ", "))
	}
	switch {
	case r.Status == engine.RunInterrupted.String():
		fmt.Fprintf(stdout, "Interrupted: %s\nEverything done is kept. Continue it with: baton run --resume %s\n", r.Message, r.ID)
		return ExitError
	case r.Status == engine.RunError.String():
		fmt.Fprintf(stdout, "Error: %s\n", r.Error)
		return ExitError
	case r.Status == engine.RunCancelled.String():
		return ExitError
	case r.TasksFailed > 0 || r.TasksSkipped > 0 || len(bad) > 0:
		return ExitFailures
	}
	return ExitOK
}
