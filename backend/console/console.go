// Package console is Baton without a window: the headless subcommands of
// the baton binary. "baton run" drives a whole orchestration from a
// terminal over the services of backend/service, "baton history" and
// "baton show" read the stored runs, and "baton templates", "parse", "sim"
// and "doctor" are the command-line faces of their backend packages.
package console

import (
	"io"
	"log/slog"
)

// Exit codes of "baton run" (and of the commands that act on a run). Each
// outcome of a run has its own; only a clean completed run exits 0.
const (
	ExitOK    = 0 // the run completed: every task, the aggregation and the verification
	ExitError = 1 // the run stopped with an error, or could not be done; the reason is printed
	ExitUsage = 2 // bad flags or arguments
	// ExitIssues: the run completed with issues (failed or skipped tasks,
	// open conflicts, a partial aggregation, a failing verification),
	// each named.
	ExitIssues = 3
	// ExitFailed: the run failed: it did nothing useful (no task completed).
	ExitFailed    = 4
	ExitCancelled = 5 // the run was cancelled (also a plan refused at the prompt)
	// ExitInterrupted: the host or the store failed past their bounds;
	// everything done is kept; continue it with --resume.
	ExitInterrupted = 6
	// ExitWaiting: the run waits for you (a plan to fix, a question with no
	// input to read it from) and the command ended; the run is kept.
	ExitWaiting = 7
	ExitPaused  = 130 // interrupted (Ctrl-C): the run is paused and can be resumed
	// ExitTerminated: SIGTERM; the run is paused and can be resumed.
	ExitTerminated = 143
	// ExitSettings: the settings file cannot be used and no --host says
	// which host to use (the file is named on stderr); a usage error.
	ExitSettings = ExitUsage
)

// quietLogger logs warnings and errors only, to stderr, so the progress
// display stays readable.
func quietLogger(w io.Writer) *slog.Logger {
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.LevelWarn}))
}
