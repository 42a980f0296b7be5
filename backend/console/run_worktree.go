package console

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/baton-app/baton/backend/service"
	"github.com/baton-app/baton/backend/template"
	"github.com/baton-app/baton/backend/view"
	"github.com/baton-app/baton/backend/worktree"
)

// describeWorktree is the line for an event of worktree isolation ("" for
// other events).
func describeWorktree(e view.Event) string {
	switch e.Name {
	case view.EventWorkerMerged:
		return fmt.Sprintf("%s %s", e.TaskID, e.Message)
	case view.EventMergeConflict, view.EventWorktree:
		return e.Message
	}
	return ""
}

// createError adds to a refused start what the user can do about a folder
// that cannot have worktrees.
// createError prints why a new run was refused, with every problem of its
// variables and of its flags (--permission-mode, --isolation, --budget) on
// a line of its own, and returns the exit code: ExitUsage for what the
// command line got wrong, ExitError for anything else.
func createError(err error, stderr io.Writer) int {
	var problems []string
	for _, p := range template.Problems(err) {
		problems = append(problems, p.Message)
	}
	var oe *service.OverridesError
	if errors.As(err, &oe) {
		problems = append(problems, oe.Problems...)
	}
	if len(problems) == 0 {
		fmt.Fprintf(stderr, "baton run: %v\n", err)
		if errors.Is(err, worktree.ErrNotRepo) {
			fmt.Fprintln(stderr, "baton run: or add --isolation shared to let the workers share the folder for this run.")
		}
		return ExitError
	}
	fmt.Fprintf(stderr, "baton run: the run cannot start (%d %s):\n", len(problems), plural(len(problems), "problem", "problems"))
	for _, p := range problems {
		fmt.Fprintf(stderr, "  - %s\n", p)
	}
	if hint := varHint(err); hint != "" {
		fmt.Fprintln(stderr, hint)
	}
	return ExitUsage
}

// worktreeSummary prints the run branch, the changes of each task and the
// command that merges them; with apply it merges them into the user's
// current branch (refused, changing nothing, when the user's uncommitted
// changes touch the same files). It returns the exit code, code unless
// Apply failed.
func worktreeSummary(ctx context.Context, svc *service.Services, runID string, apply bool, code int, stdout, stderr io.Writer) int {
	snap, err := svc.Runs.Snapshot(ctx, runID)
	if err != nil || snap.Worktree == nil {
		if apply {
			fmt.Fprintln(stderr, "baton run: --apply: this run's workers shared the folder; there is no branch to apply.")
			return ExitError
		}
		return code
	}
	w := snap.Worktree
	printChanges(stdout, w, nil)
	switch w.Outcome {
	case "empty":
		fmt.Fprintln(stdout, "No task changed a file; the run's branch was removed.")
		return code
	case "applied", "discarded":
		fmt.Fprintf(stdout, "The branch %s was %s.\n", w.Branch, w.Outcome)
		return code
	}
	fmt.Fprintf(stdout, "Branch: %s. Merge it with: %s\n", w.Branch, w.MergeCommand)
	if !apply {
		fmt.Fprintf(stdout, "Or: baton apply %s [--task ID]... (all or some tasks), baton discard %s, baton push %s [--pull-request]\n", runID, runID, runID)
		return code
	}
	a, err := svc.Runs.Apply(ctx, runID)
	if err != nil {
		fmt.Fprintf(stderr, "baton run: %v\n", err)
		return ExitError
	}
	printApplied(stdout, a)
	return code
}

func short(commit string) string {
	if len(commit) > 10 {
		return commit[:10]
	}
	return commit
}
