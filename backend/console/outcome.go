package console

import (
	"fmt"
	"io"

	"github.com/baton-app/baton/backend/view"
)

// exitCode is the exit code for a run in status: only a clean completed
// run exits 0; each other outcome has its own code (console.go).
func exitCode(status string) int {
	switch status {
	case view.RunCompleted:
		return ExitOK
	case view.RunCompletedWithIssues:
		return ExitIssues
	case view.RunFailed:
		return ExitFailed
	case view.RunCancelled:
		return ExitCancelled
	case view.RunInterrupted:
		return ExitInterrupted
	case view.RunPaused:
		return ExitPaused
	case view.RunError:
		return ExitError
	}
	// Not finished: it waits for something (a confirmation, an answer).
	return ExitWaiting
}

// statusLabel names a status for a person: "completed with issues".
func statusLabel(status string) string { return view.StatusLabel(status) }

// printIssues lists why a run is not a clean completed.
func printIssues(w io.Writer, r view.Run) {
	if len(r.Issues) == 0 {
		return
	}
	fmt.Fprintln(w, "Issues:")
	for _, is := range r.Issues {
		fmt.Fprintf(w, "  - %s\n", line(is))
	}
}
