package engine

import (
	"context"
	"fmt"
	"strings"

	"github.com/baton-app/baton/backend/store"
	"github.com/baton-app/baton/backend/template"
)

// A run's budget caps its cost (US dollars) and its tokens (input and
// output), from the template's config.budget or the run's overrides, and
// raised later by RaiseBudget. At budgetWarnAt of either cap the run warns
// once; at the cap it pauses: nothing new starts, a running worker finishes
// its turn (it is never stopped in the middle of an edit) and then waits in
// its session, and RaiseBudget resumes it all.

// budgetWarnAt is the share of the budget at which the run warns.
const budgetWarnAt = 0.8

// budgetState is the run's budget beyond the template's, stored in
// limitState.
type budgetState struct {
	// MaxCostUSD and MaxTokens, when Raised, replace the template's.
	MaxCostUSD float64 `json:"maxCostUsd,omitempty"`
	MaxTokens  int64   `json:"maxTokens,omitempty"`
	Raised     bool    `json:"raised,omitempty"`
	// Warned: the 80 % warning was given (for the budget as it is now).
	Warned bool `json:"warned,omitempty"`
	// Paused: the run paused because the budget is used up.
	Paused bool `json:"paused,omitempty"`
}

// budget is the run's budget now (zero fields: no cap).
func (r *runner) budget() template.Budget {
	if r.limits.Budget.Raised {
		return template.Budget{MaxCostUSD: r.limits.Budget.MaxCostUSD, MaxTokens: r.limits.Budget.MaxTokens}
	}
	if b := r.tmpl.Config.Budget; b != nil {
		return *b
	}
	return template.Budget{}
}

// spent is the run's cost and tokens so far.
func (r *runner) spent() (float64, int64) {
	t := r.plan.tally()
	mainCost, _ := r.main.costUSD()
	return t.costUSD + mainCost, t.inputTokens + t.outputTokens + r.main.InputTokens + r.main.OutputTokens
}

// budgetUsed is the share of the budget used: the larger of cost and
// tokens (0 when there is no cap).
func budgetUsed(b template.Budget, cost float64, tokens int64) float64 {
	var f float64
	if b.MaxCostUSD > 0 {
		f = cost / b.MaxCostUSD
	}
	if b.MaxTokens > 0 {
		f = max(f, float64(tokens)/float64(b.MaxTokens))
	}
	// Costs are sums of decimal fractions: $0.01 + $0.01 of $0.025 is 80 %.
	return f + 1e-9
}

// describeBudget says what was used of budget b.
func describeBudget(b template.Budget, cost float64, tokens int64) string {
	var parts []string
	if b.MaxCostUSD > 0 {
		parts = append(parts, fmt.Sprintf("$%.2f of $%.2f", cost, b.MaxCostUSD))
	}
	if b.MaxTokens > 0 {
		parts = append(parts, fmt.Sprintf("%d of %d tokens", tokens, b.MaxTokens))
	}
	return strings.Join(parts, ", ")
}

// checkBudget warns at 80 % of the budget and pauses the run at the cap.
func (r *runner) checkBudget(ctx context.Context) error {
	b := r.budget()
	if (b.MaxCostUSD <= 0 && b.MaxTokens <= 0) || r.status.Finished() {
		return nil
	}
	cost, tokens := r.spent()
	used := budgetUsed(b, cost, tokens)
	switch {
	case used >= 1 && r.status.active() && r.status.CanMove(RunPaused):
		r.limits.Budget.Paused = true
		r.limits.Budget.Warned = true
		r.resume = r.status
		if err := r.move(RunPaused); err != nil {
			return err
		}
		r.run.Message = "the budget is used up (" + describeBudget(b, cost, tokens) +
			"): running workers finish their turn, nothing new starts; raise the budget to go on"
		return r.commit(ctx, store.Change{}, nil, r.ev(EventBudgetReached, nil, r.run.Message), r.ev(EventPaused, nil, r.run.Message))
	case used >= budgetWarnAt && !r.limits.Budget.Warned:
		r.limits.Budget.Warned = true
		msg := fmt.Sprintf("%.0f %% of the budget used (%s)", used*100, describeBudget(b, cost, tokens))
		return r.commit(ctx, store.Change{}, nil, r.ev(EventBudgetWarning, nil, msg))
	}
	return nil
}

// budgetWait holds a worker whose turn ended while the budget is used up:
// it keeps its session and goes on when the budget is raised.
func (r *runner) budgetWait(ctx context.Context, ws *workerState) error {
	ws.book.Wait = &limitWait{Kind: LimitBudget, Since: r.e.now()}
	ws.w.CurrentAction = "waiting for the budget to be raised"
	return r.commit(ctx, store.Change{}, []*workerState{ws}, r.ev(EventWorkerPaused, ws, ws.w.CurrentAction))
}

// raiseBudget sets a new budget (a zero field keeps that cap) and resumes
// a run the budget paused.
func (r *runner) raiseBudget(ctx context.Context, nb template.Budget) error {
	if nb.MaxCostUSD < 0 || nb.MaxTokens < 0 {
		return fmt.Errorf("a budget must not be negative: %w", ErrBadRequest)
	}
	if r.status.Finished() {
		return fmt.Errorf("run %s is %s: %w", r.run.ID, r.status, ErrIllegalTransition)
	}
	b := r.budget()
	if nb.MaxCostUSD > 0 {
		b.MaxCostUSD = nb.MaxCostUSD
	}
	if nb.MaxTokens > 0 {
		b.MaxTokens = nb.MaxTokens
	}
	cost, tokens := r.spent()
	used := budgetUsed(b, cost, tokens)
	if used >= 1 {
		return fmt.Errorf("the new budget is not above what the run used (%s): %w", describeBudget(b, cost, tokens), ErrBadRequest)
	}
	wasPaused := r.limits.Budget.Paused
	r.limits.Budget = budgetState{MaxCostUSD: b.MaxCostUSD, MaxTokens: b.MaxTokens, Raised: true, Warned: used >= budgetWarnAt}
	if strings.HasPrefix(r.run.Message, "the budget is used up") {
		r.run.Message = ""
	}
	if err := r.commit(ctx, store.Change{}, nil, r.ev(EventBudgetRaised, nil, "budget raised to "+describeBudget(b, cost, tokens))); err != nil {
		return err
	}
	if wasPaused && r.status == RunPaused {
		if err := r.resumeRun(ctx); err != nil {
			return err
		}
	}
	return r.resumeWaiting(ctx)
}

// RaiseBudget sets a run's budget (a zero field keeps that cap; the new
// budget must be above what the run used) and resumes the run if its
// budget paused it.
func (e *Engine) RaiseBudget(ctx context.Context, runID string, b template.Budget) error {
	return e.do(ctx, runID, func(ctx context.Context, r *runner) error { return r.raiseBudget(ctx, b) })
}
