package console

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/baton-app/baton/backend/service"
	"github.com/baton-app/baton/backend/view"
)

// ExitBudget: the run used up its budget and paused; it waits for the
// user to raise it with baton run --resume RUN --budget USD.
const ExitBudget = ExitWaiting

// limitLine is the terminal's line for a limit or budget event ("" for
// other events).
func limitLine(p view.Event) string {
	switch p.Name {
	case view.EventLimitWaiting:
		if p.ResumesAt != nil {
			return fmt.Sprintf("waiting for the limit, resumes at %s (%s)", p.ResumesAt.Local().Format("15:04"), p.Message)
		}
		return "waiting for the limit: " + p.Message
	case view.EventLimitDue:
		return "the limit has reset; the automatic resume is off: continue with baton run --resume " + p.RunID
	case view.EventLimitResumed:
		return "the limit has reset and the run resumes"
	case view.EventBudgetWarning:
		return "budget: " + p.Message
	case view.EventBudgetReached:
		return "budget: " + p.Message
	case view.EventBudgetRaised:
		return p.Message
	}
	return ""
}

// budgetStopped ends "baton run" when the budget paused the run and no
// worker is still in a turn (each running worker finishes its turn first).
func budgetStopped(ctx context.Context, svc *service.Services, runID string, stdout io.Writer) (int, bool) {
	snap, err := svc.Runs.Snapshot(ctx, runID)
	if err != nil || !snap.Run.Limits.BudgetPaused || snap.Run.Status != view.RunPaused {
		return 0, false
	}
	for _, w := range snap.Workers {
		if (w.Status == view.WorkerRunning || w.Status == view.WorkerSpawning) &&
			!strings.HasPrefix(w.CurrentAction, "waiting for") {
			return 0, false
		}
	}
	fmt.Fprintf(stdout, "\nThe budget of %s is used up (cost so far $%.2f, %d tokens); the run is paused.\n",
		runID, snap.Run.CostUSD, snap.Run.InputTokens+snap.Run.OutputTokens)
	fmt.Fprintf(stdout, "Raise it and continue with: baton run --resume %s --budget USD (or --budget-tokens N)\n", runID)
	return ExitBudget, true
}
