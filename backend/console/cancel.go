package console

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/baton-app/baton/backend/service"
	"github.com/baton-app/baton/backend/view"
)

// CancelCLI is "baton cancel RUN_ID": it cancels a run that has not
// finished (one waiting for its plan to be confirmed, a paused or an
// interrupted one): its workers' sessions are stopped through the host, and
// what was done is kept with its final report. The run must not be driven
// by Baton's window or another "baton run" at the same time.
func CancelCLI(args []string, stdout, stderr io.Writer) int {
	fs, host, cdp, claudePath := cancelFlagSet()
	id, err := oneRunID(fs, args)
	if err != nil {
		fmt.Fprintf(stderr, "baton cancel: %s.\nusage: %s\n", strings.TrimSuffix(err.Error(), "."), cancelUsage)
		return ExitUsage
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	// The run's sessions are stopped through the host it ran on, unless
	// the flags name another.
	svc, err := service.Open(service.Options{Logger: quietLogger(stderr), RunHost: id,
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

// cancelFlagSet defines the flags of "baton cancel": the host that stops
// the run's sessions.
func cancelFlagSet() (fs *flag.FlagSet, host, cdp, claudePath *string) {
	fs = noFlags("cancel")
	host = fs.String("host", "", "sim, desktop or claude-code (default: the host in Settings)")
	cdp = fs.String("cdp", "", "Claude Desktop's DevTools endpoint (implies --host desktop)")
	claudePath = fs.String("claude", "", "the Claude Code CLI (implies --host claude-code)")
	return fs, host, cdp, claudePath
}
