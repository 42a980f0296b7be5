package console

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"time"

	"github.com/baton-app/baton/backend/owner"
	"github.com/baton-app/baton/backend/service"
	"github.com/baton-app/baton/backend/view"
)

// CancelCLI is "baton cancel RUN_ID": it cancels a run that has not
// finished (one waiting for its plan to be confirmed, a paused or an
// interrupted one): its workers' sessions are stopped through the host, and
// what was done is kept with its final report. The run must not be driven
// by Baton's window or another "baton run" at the same time: then it says
// which process drives it and changes nothing.
func CancelCLI(args []string, stdout, stderr io.Writer) int {
	fs, o := cancelFlagSet()
	host, cdp, claudePath := o.host, o.cdp, o.claude
	id, err := oneRunID(fs, args)
	if err != nil {
		fmt.Fprintf(stderr, "baton cancel: %s.\nusage: %s\n", strings.TrimSuffix(err.Error(), "."), cancelUsage)
		return ExitUsage
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	// Stopping a run's sessions is noisy (hosts that went away meanwhile):
	// only --verbose shows those log lines; the outcome is one sentence.
	// The run's sessions are stopped through the host it ran on, unless
	// the flags name another.
	logger := slog.New(slog.DiscardHandler)
	if *o.verbose {
		logger = slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	svc, err := service.Open(service.Options{Logger: logger, RunHost: id,
		Host: service.HostOverrides{Host: *host, CDP: *cdp, Claude: *claudePath}})
	if err != nil {
		fmt.Fprintf(stderr, "baton cancel: %v\n", err)
		return ExitError
	}
	defer closeServices(svc, stderr)
	run, err := svc.Runs.Run(ctx, id)
	if errors.Is(err, service.ErrUnknownRun) {
		fmt.Fprintf(stderr, "baton cancel: there is no run %q; \"baton history\" lists the runs.\n", id)
		return ExitError
	}
	if err != nil {
		fmt.Fprintf(stderr, "baton cancel: %v\n", err)
		return ExitError
	}
	if view.Finished(run.Status) {
		fmt.Fprintf(stderr, "baton cancel: run %s is already %s; there is nothing to cancel.\n", id, statusLabel(run.Status))
		return ExitError
	}
	if err := svc.Runs.Restore(ctx, id); err != nil {
		if msg, ok := drivenElsewhere(err, "cancel it there"); ok {
			fmt.Fprintf(stderr, "baton cancel: %s\n", msg)
			return ExitError
		}
		fmt.Fprintf(stderr, "baton cancel: cannot take up %s: %v\n", id, err)
		return ExitError
	}
	if err := svc.Runs.Cancel(ctx, id); err != nil {
		fmt.Fprintf(stderr, "baton cancel: %v\n", err)
		return ExitError
	}
	done, err := svc.Runs.Wait(ctx, id)
	if err != nil {
		fmt.Fprintf(stderr, "baton cancel: %v\n", err)
		return ExitError
	}
	fmt.Fprintf(stdout, "Cancelled run %s (it was %s); %d of %s had completed. \"baton show %s\" prints its report; \"baton delete %s\" removes it.\n",
		id, statusLabel(run.Status), done.TasksCompleted, count(done.TasksTotal, "task", "tasks"), id, id)
	if done.Status != view.RunCancelled {
		return exitCode(done.Status)
	}
	return ExitOK
}

type cancelOptions struct {
	host, cdp, claude *string
	verbose           *bool
}

// cancelFlagSet defines the flags of "baton cancel": the host that stops
// the run's sessions, and whether to show the log.
func cancelFlagSet() (*flag.FlagSet, cancelOptions) {
	fs := noFlags("cancel")
	var o cancelOptions
	o.host = fs.String("host", "", "sim, desktop or claude-code (default: the host in Settings)")
	o.cdp = fs.String("cdp", "", "Claude Desktop's DevTools endpoint (implies --host desktop)")
	o.claude = fs.String("claude", "", "the Claude Code CLI (implies --host claude-code)")
	o.verbose = fs.Bool("verbose", false, "also print the log of stopping the run's sessions")
	return fs, o
}

// drivenElsewhere is the sentence for err when it is a run another live
// process drives (Baton's window, another "baton run"): who drives it and
// what to do (there: what to do in the window).
func drivenElsewhere(err error, there string) (string, bool) {
	var de *service.DrivenError
	if !errors.As(err, &de) {
		return "", false
	}
	if de.Owner.Face == owner.Window || de.Owner.Face == owner.Serve {
		return fmt.Sprintf("%s; %s, or quit Baton and try again.", de.Error(), there), true
	}
	return fmt.Sprintf("%s; Ctrl-C there pauses it, and then this command can take it up.", de.Error()), true
}
