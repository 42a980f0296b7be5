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

	"github.com/baton-app/baton/backend/service"
	"github.com/baton-app/baton/backend/view"
)

// runDetails is the help of "baton run" after its summary; MODES stands for
// the list of permission modes.
const runDetails = `Runs a whole orchestration without a window and shows its progress. What the
run waits for is asked on the terminal: the task list (unless --yes),
questions of the workers and of the main session (AskUserQuestion options are
listed: type a number or your own words), permission prompts, and reviews the
template leaves to you. A question left open is asked again on --resume. With
nobody to ask (the input ended, as with </dev/null, or --non-interactive) the
first of them pauses the run and the command ends with exit code 7, saying what
waits: answer it in Baton's window, or with --resume on a terminal. A task list
that fails its checks is printed with its problems (also one the planner still
left incomplete after its re-prompts): fix it with --plan FILE (a JSON file
with the tasks, as {"tasks": [...]}), now or with --resume, or cancel the run.
A run you resume is never removed from the history. One process drives a run
at a time: --resume of a run Baton's window (or another baton run) drives
changes nothing and names that process.
The end prints the outcome, the files written and the final report:
iterations, notes (such as the tasks you skipped), decisions and known
limitations.
--permission-mode sets the permission mode of every session of this run, the
main session's included, one of the CLI's modes: MODES.
--allow RULE and --deny RULE (repeatable) add permission rules in Claude
Code's syntax for this run, such as --allow 'Bash(go test:*)' --allow
'Edit(docs/**)' --deny 'Bash(rm:*)'; with the rules of the template and of
settings.json ("permissions": {"allow": [...], "deny": [...]}) they answer a
prompt they cover at once, deny winning, and every answer is kept in the
run's permission log (baton show), with the calls the permission mode let run
(or denied) without a prompt. A prompt asked on the terminal offers
"r" (allow for this run): pick a suggested rule and every identical prompt
of the run, now and later, is allowed.
With --host claude-code every session is a Claude Code CLI process (claude on
PATH, or --claude PATH) that inherits this environment: your login or
ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL, proxies.
A run remembers its host (the CLI's path and version, or the endpoint):
--resume continues it there whatever Settings say; --host, --cdp or --claude
with --resume move it on purpose and print what moves (completed tasks stay)
and what starts again.
Baton runs the project's checks itself (the template's config.checks, else
those it finds: a Makefile test target, go.mod, a package.json test script,
Cargo.toml, pytest) before the workers and after them, each in its own
process group within its time limit; the summary says what they found, a
check the run broke keeps it from "completed", and "no checks ran" is never
a pass. A report under another task's id is refused and asked again; a
worker that reports success without writing its declared outputs is asked
once more, naming them, then its task completes with issues.
--budget and --budget-tokens cap the run's cost (US dollars) and tokens: at 80 %
a warning, at the cap the run pauses once its running workers end their turn;
with --resume they raise the budget and the run goes on. A rate, overload or
usage limit is waited for ("waiting for the limit, resumes at HH:MM").
With worktree isolation (the template's, or --isolation worktree) every worker
works in its own git worktree and the results land on the branch baton/RUN_ID;
the end prints each task's changed files, the command that merges the
branch and the baton apply, discard and push commands, and --apply merges it
into your current branch (refused, changing nothing, when your uncommitted
changes touch the same files); --resume RUN_ID --apply applies a run that
has finished.`

const runHint = "Run \"baton help run\" for its flags.\n"

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
	fs, o := runFlagSet()
	tmpl, cwd, message, yes, host, cdp, claudePath, scenario, speed, resume, permission, vars, plan, budget, budgetTokens, isolation, apply := o.tmpl, o.cwd, o.message, o.yes, o.host, o.cdp, o.claudePath, o.scenario, o.speed, o.resume, o.permission, o.vars, o.plan, o.budget, o.budgetTokens, o.isolation, o.apply
	if err := fs.Parse(args); err != nil {
		fmt.Fprintf(stderr, "baton run: %v\n%s", err, runHint)
		return ExitUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "baton run: unexpected argument %q\n%s", fs.Arg(0), runHint)
		return ExitUsage
	}
	if *resume == "" && (*tmpl == "" || strings.TrimSpace(*message) == "") {
		fmt.Fprintf(stderr, "baton run needs --template and --message (or --resume RUN_ID).\n%s", runHint)
		return ExitUsage
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

	display := newProgress(stdout)
	// A resumed run continues on the host it ran on, whatever the
	// settings say now; --host, --cdp or --claude move it on purpose.
	svc, err := service.Open(service.Options{Logger: quietLogger(stderr), RunHost: *resume,
		Host: service.HostOverrides{Host: *host, CDP: *cdp, Claude: *claudePath, Scenario: *scenario, Speed: *speed}})
	if err != nil {
		fmt.Fprintf(stderr, "baton run: %v\n", err)
		return ExitError
	}
	if problem := svc.Settings.Problem(); problem != nil {
		// A settings file Baton cannot use is named with what is wrong;
		// the run does not silently fall back to another host.
		fmt.Fprintf(stderr, "baton run: %v\n", problem)
		if *host == "" && *cdp == "" && *claudePath == "" && *resume == "" {
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
	events := make(chan view.Event, 1024)
	svc.Events.Subscribe(func(name string, payload any) {
		e, ok := view.EventOf(name, payload)
		if !ok {
			return // not a run's
		}
		select {
		case events <- e:
		default: // the display is behind; the snapshot at the end is complete
		}
	})

	var runID string
	if *resume != "" {
		runID = *resume
		if run, err := svc.Runs.Run(ctx, runID); err == nil && view.Finished(run.Status) && *apply {
			// A finished run has nothing to resume; --apply applies its branch.
			return worktreeSummary(ctx, svc, runID, true, ExitOK, stdout, stderr)
		}
		if *host != "" || *cdp != "" || *claudePath != "" {
			// The user named a host: the run moves there when it ran on
			// another, and says what moves and what starts again.
			mv, err := svc.Runs.Move(ctx, runID)
			if err != nil {
				if msg, ok := drivenElsewhere(err, "resume it there"); ok {
					fmt.Fprintf(stderr, "baton run: %s\n", msg)
					return ExitError
				}
				fmt.Fprintf(stderr, "baton run: cannot resume %s on %s: %v\n", runID, svc.Hosts.Describe(), err)
				return ExitError
			}
			if mv.Message != "" {
				fmt.Fprintln(stdout, sanitize(mv.Message))
			}
		} else if err := svc.Runs.Restore(ctx, runID); err != nil {
			if msg, ok := drivenElsewhere(err, "resume it there"); ok {
				fmt.Fprintf(stderr, "baton run: %s\n", msg)
				return ExitError
			}
			fmt.Fprintf(stderr, "baton run: cannot resume %s: %v\n", runID, err)
			return ExitError
		}
		if *budget > 0 || *budgetTokens > 0 {
			if err := svc.Runs.RaiseBudget(ctx, runID, view.Budget{MaxCostUSD: *budget, MaxTokens: *budgetTokens}); err != nil {
				fmt.Fprintf(stderr, "baton run: cannot raise the budget of %s: %v\n", runID, err)
				return ExitError
			}
		}
		if snap, err := svc.Runs.Snapshot(ctx, runID); err == nil && snap.Run.Limits.ResumeDue {
			if err := svc.Runs.ResumeAfterLimit(ctx, runID); err != nil {
				fmt.Fprintf(stderr, "baton run: cannot resume %s after its limit: %v\n", runID, err)
				return ExitError
			}
		}
		if snap, err := svc.Runs.Snapshot(ctx, runID); err == nil && (snap.Run.Status == view.RunPaused || snap.Run.Status == view.RunInterrupted) {
			if err := svc.Runs.Resume(ctx, runID); err != nil {
				fmt.Fprintf(stderr, "baton run: cannot resume %s: %v\n", runID, err)
				return ExitError
			}
		}
		fmt.Fprintf(stdout, "Resuming %s (host: %s)\n", runID, svc.Hosts.Describe())
	} else {
		req := view.CreateRequest{TemplateID: *tmpl, Cwd: dir, Request: *message, Variables: vars}
		if *permission != "" {
			req.Overrides = &view.Overrides{PermissionMode: permission}
		}
		if *budget < 0 || *budgetTokens < 0 {
			fmt.Fprintf(stderr, "baton run: --budget and --budget-tokens must not be negative\n")
			return ExitError
		}
		if *budget > 0 || *budgetTokens > 0 {
			if req.Overrides == nil {
				req.Overrides = &view.Overrides{}
			}
			req.Overrides.Budget = &view.Budget{MaxCostUSD: *budget, MaxTokens: *budgetTokens}
		}
		if *isolation != "" {
			if req.Overrides == nil {
				req.Overrides = &view.Overrides{}
			}
			req.Overrides.Isolation = isolation
		}
		if len(o.allow)+len(o.deny) > 0 {
			if req.Overrides == nil {
				req.Overrides = &view.Overrides{}
			}
			req.Overrides.Allow, req.Overrides.Deny = o.allow, o.deny
		}
		if len(o.machines) > 0 {
			for _, name := range o.machines {
				if code := checkMachine(ctx, svc.Machines, name, stderr); code != ExitOK {
					return code
				}
			}
			if req.Overrides == nil {
				req.Overrides = &view.Overrides{}
			}
			req.Overrides.Machines = o.machines
		}
		// The cheap checks first (template, variables, permission mode,
		// folder, the database's lock), then the host: a host that cannot
		// be used refuses the start before anything is stored, so no run is
		// left in the history for it.
		if err := svc.Runs.Check(ctx, req); err != nil {
			return createError(err, stderr)
		}
		if _, err := svc.Hosts.Host(ctx); err != nil {
			fmt.Fprintf(stderr, "baton run: %v\nNothing was started or stored.\n", err)
			return ExitError
		}
		run, err := svc.Runs.Create(ctx, req)
		if err != nil {
			return createError(err, stderr)
		}
		runID = run.ID
		fmt.Fprintf(stdout, "Run %s: %s in %s (host: %s)\n", run.ID, run.TemplateName, run.Cwd, svc.Hosts.Describe())
		if err := svc.Runs.Start(ctx, runID); err != nil {
			fmt.Fprintf(stderr, "baton run: %v\n", err)
			return ExitError
		}
	}

	answers := newLineReader(stdin)
	attend := newAttention(svc.Runs, svc.Hosts, runID, stdin, answers, stdout)
	attend.eof = *o.nonInteractive
	conf := &confirmer{svc: svc, runID: runID, yes: *yes, plan: *plan, answers: answers, stdout: stdout, stderr: stderr,
		resumed: *resume != "", nobody: *o.nonInteractive}
	if *resume != "" {
		// A resumed run may wait for its task list (or its fix): ask now,
		// no event will.
		if code, done := conf.confirm(ctx); done {
			return code
		}
	}
	// Events may be dropped when the display is behind: look again now and then.
	recheck := time.NewTicker(time.Second)
	defer recheck.Stop()
	finished := make(chan view.Run, 1)
	var waiting sync.WaitGroup
	defer func() { stop(); waiting.Wait() }() // ends the wait before the services close
	waiting.Go(func() {
		run, err := svc.Runs.Wait(ctx, runID)
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
			err := svc.Runs.Pause(pctx, runID)
			cancel()
			if err != nil && !errors.Is(err, service.ErrIllegalTransition) {
				fmt.Fprintf(stderr, "\nbaton run: could not pause %s: %v\n", runID, err)
			}
			fmt.Fprintf(stdout, "\nPaused %s. Continue it with: baton run --resume %s\n", runID, runID)
			return signalled()
		case e := <-events:
			display.event(e)
			switch e.Name {
			case view.EventTasksReady, view.EventTasksInvalid:
				if code, done := conf.confirm(ctx); done {
					return code
				}
			case view.EventWorkerQuestion, view.EventWorkerAwaitingReview, view.EventWorkerWaiting:
				if what := attend.check(ctx); what != "" {
					return nobodyToAsk(ctx, svc, runID, what, stdout, stderr)
				}
			case view.EventBudgetReached, view.EventWorkerPaused:
				if code, done := budgetStopped(ctx, svc, runID, stdout); done {
					return code
				}
			}
		case <-recheck.C:
			if what := attend.check(ctx); what != "" {
				return nobodyToAsk(ctx, svc, runID, what, stdout, stderr)
			}
			if code, done := budgetStopped(ctx, svc, runID, stdout); done {
				return code
			}
		case run, ok := <-finished:
			if !ok {
				continue // ctx ended; the next loop pauses
			}
			drain(display, events)
			return worktreeSummary(ctx, svc, run.ID, *apply, summary(ctx, svc, run, stdout), stdout, stderr)
		}
	}
}

// nobodyToAsk ends the command when the run waits for an answer (what)
// and nobody is there to give it (no input, or --non-interactive): the run
// is paused, and the user is told how to answer and go on. It returns
// ExitWaiting.
func nobodyToAsk(ctx context.Context, svc *service.Services, runID, what string, stdout, stderr io.Writer) int {
	pctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 20*time.Second)
	defer cancel()
	if err := svc.Runs.Pause(pctx, runID); err != nil && !errors.Is(err, service.ErrIllegalTransition) {
		fmt.Fprintf(stderr, "baton run: could not pause %s: %v\n", runID, err)
	}
	fmt.Fprintf(stdout, "\nNobody is here to answer: %s\n", line(what))
	fmt.Fprintf(stdout, "Paused %s. Answer in Baton's window (Runs: Resume, then the Inbox), or here with a terminal: baton run --resume %s\n", runID, runID)
	return ExitWaiting
}

func drain(display *progress, events chan view.Event) {
	for {
		select {
		case e := <-events:
			display.event(e)
		default:
			return
		}
	}
}

// confirm shows the proposed tasks and asks for confirmation when the run
// waits for it. A task list that fails its checks is printed with its
// problems and replaced by a plan file (--plan, or one named at the prompt),
// or the run is cancelled; without input the command ends and the run waits
// (exit ExitWaiting), never silently. It reports done with an exit code when
// the command ends.
func (c *confirmer) confirm(ctx context.Context) (int, bool) {
	snap, err := c.svc.Runs.Snapshot(ctx, c.runID)
	if err != nil || snap.Run.Status != view.RunConfirming {
		return 0, false
	}
	if c.plan != "" {
		path := c.plan
		c.plan = "" // used once
		if err := c.usePlan(ctx, path); err != nil {
			fmt.Fprintf(c.stderr, "baton run: %v\n", err)
			return c.waits(), true
		}
		fmt.Fprintf(c.stdout, "Using the plan in %s.\n", path)
		return 0, false
	}
	if problems, _ := c.svc.Runs.TaskListProblems(ctx, c.runID); len(problems) > 0 {
		if c.shown == fmt.Sprint(problems) {
			return 0, false // asked already
		}
		c.shown = fmt.Sprint(problems)
		c.printTasks(snap)
		fmt.Fprintf(c.stdout, "The proposed task list cannot be used:\n")
		for _, p := range problems {
			fmt.Fprintf(c.stdout, "  - %s\n", line(p))
		}
		if c.nobody {
			return c.waits(), true
		}
		for {
			fmt.Fprint(c.stdout, "Give a JSON plan file to use instead ({\"tasks\": [...]}), or press Enter to cancel the run: ")
			text, err := c.answers.ReadLine(ctx)
			if ctx.Err() != nil {
				return 0, false // the command pauses the run
			}
			text = strings.TrimSpace(text)
			if err != nil && text == "" {
				fmt.Fprintln(c.stdout)
				return c.waits(), true
			}
			if text == "" {
				if err := c.svc.Runs.Cancel(ctx, c.runID); err != nil {
					fmt.Fprintf(c.stderr, "baton run: cancel %s: %v\n", c.runID, err)
					return ExitError, true
				}
				fmt.Fprintf(c.stdout, "Cancelled %s; nothing was started. \"baton delete %s\" removes it from the history.\n", c.runID, c.runID)
				return ExitCancelled, true
			}
			if err := c.usePlan(ctx, text); err != nil {
				fmt.Fprintf(c.stdout, "%v\n", err)
				continue
			}
			fmt.Fprintf(c.stdout, "Using the plan in %s.\n", text)
			return 0, false
		}
	}
	c.printTasks(snap)
	if !c.yes {
		if c.nobody {
			return nobodyToAsk(ctx, c.svc, c.runID, "the task list waits for your confirmation (--yes confirms it)", c.stdout, c.stderr), true
		}
		fmt.Fprint(c.stdout, "Start these tasks? [y/N] ")
		text, err := c.answers.ReadLine(ctx)
		if ctx.Err() != nil {
			return 0, false // the command pauses the run
		}
		a := strings.ToLower(strings.TrimSpace(text))
		if err != nil && a == "" {
			// No input: nobody refused the plan; the run waits for them.
			fmt.Fprintln(c.stdout)
			return nobodyToAsk(ctx, c.svc, c.runID, "the task list waits for your confirmation (--yes confirms it)", c.stdout, c.stderr), true
		}
		if a != "y" && a != "yes" {
			if err := c.svc.Runs.Cancel(ctx, c.runID); err != nil {
				fmt.Fprintf(c.stderr, "baton run: cancel %s: %v\n", c.runID, err)
			}
			if c.resumed {
				// A run the user asked to resume is kept: its history
				// stays.
				fmt.Fprintf(c.stdout, "Cancelled %s; what it did is kept (\"baton show %s\").\n", c.runID, c.runID)
				return ExitCancelled, true
			}
			// A refused plan started nothing: the run leaves no entry in
			// the history.
			if _, err := c.svc.Runs.Wait(ctx, c.runID); err == nil {
				if _, err := c.svc.Runs.Delete(ctx, c.runID); err != nil {
					fmt.Fprintf(c.stderr, "baton run: remove %s from the history: %v\n", c.runID, err)
				}
			}
			fmt.Fprintf(c.stdout, "Cancelled %s; nothing was started, and it is not kept in the history.\n", c.runID)
			return ExitCancelled, true
		}
	}
	if err := c.svc.Runs.Confirm(ctx, c.runID, view.Modifications{}); err != nil {
		if code, done := budgetStopped(ctx, c.svc, c.runID, c.stdout); done {
			return code, true // the planning used up the budget
		}
		fmt.Fprintf(c.stderr, "baton run: %v\n", err)
		return ExitError, true
	}
	return 0, false
}

// confirmer is the confirmation step of "baton run".
type confirmer struct {
	svc     *service.Services
	runID   string
	yes     bool
	plan    string // --plan FILE, until used
	answers *lineReader
	stdout  io.Writer
	stderr  io.Writer
	// shown: the problems of the task list last shown (each list once).
	shown string
	// resumed: the user asked to resume this run (it is never deleted);
	// nobody: --non-interactive (nothing is read).
	resumed, nobody bool
}

func (c *confirmer) printTasks(snap view.Snapshot) {
	if m := strings.TrimSpace(snap.Run.Message); m != "" {
		fmt.Fprintf(c.stdout, "\n%s\n", sanitize(m)) // the skills loaded and skipped (seed 004)
	}
	fmt.Fprintf(c.stdout, "\nProposed tasks (%d):\n", len(snap.Tasks))
	listed := map[string]bool{}
	show := func(t view.Task) {
		deps := ""
		if len(t.Dependencies) > 0 {
			deps = " after " + strings.Join(t.Dependencies, ", ")
		}
		fmt.Fprintf(c.stdout, "  %-10s p%-2d %s%s\n", t.ID, t.Priority, line(t.Title), deps)
		listed[t.ID] = true
	}
	for _, group := range snap.ParallelGroups {
		for _, id := range group {
			for _, t := range snap.Tasks {
				if t.ID == id && !listed[id] {
					show(t)
				}
			}
		}
	}
	for _, t := range snap.Tasks { // those no group holds (a cycle, a bad dependency)
		if !listed[t.ID] {
			show(t)
		}
	}
}

// usePlan confirms the run with the tasks of a plan file in place of the
// proposed ones.
func (c *confirmer) usePlan(ctx context.Context, path string) error {
	tasks, err := readPlanFile(path)
	if err != nil {
		return err
	}
	if err := c.svc.Runs.ConfirmPlan(ctx, c.runID, tasks); err != nil {
		var tle *service.TaskListError
		if errors.As(err, &tle) {
			return fmt.Errorf("the plan in %s cannot be used either: %s", path, strings.Join(tle.Problems, "; "))
		}
		return fmt.Errorf("the plan in %s cannot be used: %v", path, err)
	}
	return nil
}

// waits tells how to go on with a run whose task list waits for a fix, and
// returns ExitWaiting.
func (c *confirmer) waits() int {
	fmt.Fprintf(c.stdout, "The run %s waits for a task list it can use. Give one with: baton run --resume %s --plan FILE\nor cancel it with: baton cancel %s\n", c.runID, c.runID, c.runID)
	return ExitWaiting
}

// summary prints how the run ended, its issues and what to do next, and
// returns the exit code of its outcome.
func summary(ctx context.Context, svc *service.Services, run view.Run, stdout io.Writer) int {
	snap, err := svc.Runs.Show(ctx, run.ID)
	if err != nil {
		snap = view.Snapshot{Run: run}
	}
	r := snap.Run
	fmt.Fprintf(stdout, "\nRun %s %s: %d of %s completed", r.ID, statusLabel(r.Status), r.TasksCompleted, count(r.TasksTotal, "task", "tasks"))
	if r.TasksFailed > 0 {
		fmt.Fprintf(stdout, ", %d failed", r.TasksFailed)
	}
	if r.TasksSkipped > 0 {
		fmt.Fprintf(stdout, ", %d skipped", r.TasksSkipped)
	}
	fmt.Fprintf(stdout, ". Tokens %d in / %d out, cost %s.\n", r.InputTokens, r.OutputTokens, view.CostLabel(r))
	var bad []string
	for _, w := range snap.Workers {
		switch {
		case w.Status == view.WorkerCompleted && !w.Skipped:
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
	printIssues(stdout, r)
	if rep := snap.FinalReport; rep != nil && rep.Checks != nil {
		// What Baton checked itself, never what an agent said.
		if !rep.Checks.Ran {
			fmt.Fprintf(stdout, "Checks: %s\n", line(rep.Checks.Note))
		}
		var after []string
		for _, c := range rep.Checks.After {
			s := c.Command + " " + c.Status
			if c.Verdict != "" && c.Verdict != "passes" {
				s += " (" + c.Verdict + ")"
			}
			after = append(after, s)
		}
		if len(after) > 0 {
			fmt.Fprintf(stdout, "Checks after the workers: %s\n", line(strings.Join(after, ", ")))
		}
	}
	if rep := snap.FinalReport; rep != nil && len(rep.Files) > 0 {
		var files []string
		for _, f := range rep.Files {
			files = append(files, f.Path)
		}
		fmt.Fprintf(stdout, "Files: %s\n", strings.Join(files, ", "))
	}
	if rep := snap.FinalReport; rep != nil {
		printFinalReport(stdout, *rep) // iterations, decisions, known limitations (seed 004 5.1)
	}
	switch r.Status {
	case view.RunInterrupted:
		fmt.Fprintf(stdout, "Interrupted: %s\nEverything done is kept. Continue it with: baton run --resume %s\n", r.Message, r.ID)
	case view.RunError:
		fmt.Fprintf(stdout, "Error: %s\n", r.Error)
	}
	if r.Status != view.RunCompleted {
		fmt.Fprintf(stdout, "The whole report: baton show %s\n", r.ID)
	}
	return exitCode(r.Status)
}

type runOptions struct {
	tmpl         *string
	cwd          *string
	message      *string
	yes          *bool
	host         *string
	cdp          *string
	claudePath   *string
	scenario     *string
	speed        *float64
	resume       *string
	permission   *string
	plan         *string
	vars         varFlags
	budget       *float64
	budgetTokens *int64
	isolation    *string
	machines     listFlag
	apply        *bool
	allow, deny  multiFlag
	// nonInteractive: nothing is read; the first thing the run waits for
	// pauses it and ends the command (exit 7).
	nonInteractive *bool
}

// runFlagSet defines the flags of "baton run": its help lists them all.
func runFlagSet() (*flag.FlagSet, *runOptions) {
	o := &runOptions{}
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	o.tmpl = fs.String("template", "", "template id")
	o.cwd = fs.String("cwd", ".", "project folder")
	o.message = fs.String("message", "", "the request")
	o.yes = fs.Bool("yes", false, "confirm the task list without asking")
	o.host = fs.String("host", "", "sim, desktop or claude-code (default: the host in Settings)")
	o.cdp = fs.String("cdp", "", "Claude Desktop's DevTools endpoint (implies --host desktop)")
	o.claudePath = fs.String("claude", "", "the Claude Code CLI to run (implies --host claude-code)")
	o.scenario = fs.String("scenario", "", "simulator scenario")
	o.speed = fs.Float64("sim-speed", 1, "simulator speed factor")
	o.resume = fs.String("resume", "", "continue a paused or interrupted run")
	o.permission = fs.String("permission-mode", "", "the permission mode of every session of this run (the main session's too)")
	o.plan = fs.String("plan", "", "a JSON file with the task list to use instead of a proposed one that fails its checks")
	o.budget = fs.Float64("budget", 0, "the most the run may cost in US dollars (with --resume: the raised budget)")
	o.isolation = fs.String("isolation", "", "worktree or shared for this run (default: the template's)")
	fs.Var(&o.machines, "machine", "a machine of \"baton machines\" this worktree run places workers on, each within its max workers; the others run here (repeatable)")
	o.apply = fs.Bool("apply", false, "merge the run's branch into the current branch at the end")
	o.budgetTokens = fs.Int64("budget-tokens", 0, "the most tokens the run may use (with --resume: the raised budget)")
	o.nonInteractive = fs.Bool("non-interactive", false, "read nothing: the first question, permission prompt or plan to confirm (without --yes) pauses the run and ends the command with exit code 7")
	o.vars = varFlags{}
	fs.Var(o.vars, "var", "template variable NAME=VALUE (repeatable)")
	fs.Var(&o.allow, "allow", "a permission rule whose prompts Baton allows in this run, such as 'Bash(go test:*)' (repeatable)")
	fs.Var(&o.deny, "deny", "a permission rule whose prompts Baton denies in this run, such as 'Bash(rm:*)' (repeatable)")
	return fs, o
}
