package console

import (
	"fmt"
	"io"

	"github.com/baton-app/baton/backend/engine"
	"github.com/baton-app/baton/backend/store"
)

// exitCode is the exit code for a run in status: only a clean completed
// run exits 0; each other outcome has its own code (console.go).
func exitCode(status string) int {
	switch status {
	case engine.RunCompleted.String():
		return ExitOK
	case engine.RunCompletedWithIssues.String():
		return ExitIssues
	case engine.RunFailed.String():
		return ExitFailed
	case engine.RunCancelled.String():
		return ExitCancelled
	case engine.RunInterrupted.String():
		return ExitInterrupted
	case engine.RunPaused.String():
		return ExitPaused
	case engine.RunError.String():
		return ExitError
	}
	// Not finished: it waits for something (a confirmation, an answer).
	return ExitWaiting
}

// statusLabel names a status for a person: "completed with issues".
func statusLabel(status string) string { return engine.OutcomeLabel(status) }

// printIssues lists why a run is not a clean completed.
func printIssues(w io.Writer, r store.Run) {
	if len(r.Issues) == 0 {
		return
	}
	fmt.Fprintln(w, "Issues:")
	for _, is := range r.Issues {
		fmt.Fprintf(w, "  - %s\n", line(is))
	}
}
