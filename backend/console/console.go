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

// Exit codes of "baton run".
const (
	ExitOK       = 0   // every task completed
	ExitError    = 1   // the run could not be done; the reason is printed
	ExitFailures = 2   // the run finished with failed or skipped tasks, named
	ExitPaused   = 130 // interrupted (Ctrl-C): the run is paused and can be resumed
)

// quietLogger logs warnings and errors only, to stderr, so the progress
// display stays readable.
func quietLogger(w io.Writer) *slog.Logger {
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.LevelWarn}))
}
