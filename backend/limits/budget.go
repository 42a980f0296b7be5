package limits

import (
	"errors"
	"fmt"
	"strings"

	"github.com/baton-app/baton/backend/template"
)

// A run's budget caps its cost (US dollars) and its tokens (input and
// output), from the template's config.budget or the run's overrides, and
// raised later by the user. At WarnAt of either cap the run warns once; at
// the cap it pauses: nothing new starts, a running worker finishes its turn
// (it is never stopped in the middle of an edit) and then waits in its
// session, and raising the budget resumes it all.

// WarnAt is the share of the budget at which the run warns.
const WarnAt = 0.8

// BudgetState is the run's budget beyond the template's, stored in State.
type BudgetState struct {
	// MaxCostUSD and MaxTokens, when Raised, replace the template's.
	MaxCostUSD float64 `json:"maxCostUsd,omitempty"`
	MaxTokens  int64   `json:"maxTokens,omitempty"`
	Raised     bool    `json:"raised,omitempty"`
	// Warned: the warning was given (for the budget as it is now).
	Warned bool `json:"warned,omitempty"`
	// Paused: the run paused because the budget is used up.
	Paused bool `json:"paused,omitempty"`
}

// BudgetNow is the run's budget now: the raised one, else the configured
// one (zero fields: no cap).
func (s *State) BudgetNow(configured *template.Budget) template.Budget {
	if s.Budget.Raised {
		return template.Budget{MaxCostUSD: s.Budget.MaxCostUSD, MaxTokens: s.Budget.MaxTokens}
	}
	if configured != nil {
		return *configured
	}
	return template.Budget{}
}

// Used is the share of budget b used: the larger of cost and tokens (0
// when there is no cap).
func Used(b template.Budget, cost float64, tokens int64) float64 {
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

// Describe says what was used of budget b.
func Describe(b template.Budget, cost float64, tokens int64) string {
	var parts []string
	if b.MaxCostUSD > 0 {
		parts = append(parts, fmt.Sprintf("$%.2f of $%.2f", cost, b.MaxCostUSD))
	}
	if b.MaxTokens > 0 {
		parts = append(parts, fmt.Sprintf("%d of %d tokens", tokens, b.MaxTokens))
	}
	return strings.Join(parts, ", ")
}

// BudgetStep is what the run does about its budget (State.CheckBudget).
type BudgetStep int

// The steps of a run with a budget.
const (
	// BudgetOK: nothing to say.
	BudgetOK BudgetStep = iota
	// BudgetWarn: the run used WarnAt of its budget; it warns once.
	BudgetWarn
	// BudgetPause: the budget is used up; the run pauses.
	BudgetPause
)

// CheckBudget says what a run that spent cost and tokens of budget b does:
// pause when it is used up and the run can pause now, warn once at WarnAt.
// It returns the share used.
func (s *State) CheckBudget(b template.Budget, cost float64, tokens int64, canPause bool) (BudgetStep, float64) {
	if b.MaxCostUSD <= 0 && b.MaxTokens <= 0 {
		return BudgetOK, 0
	}
	used := Used(b, cost, tokens)
	switch {
	case used >= 1 && canPause:
		s.Budget.Paused = true
		s.Budget.Warned = true
		return BudgetPause, used
	case used >= WarnAt && !s.Budget.Warned:
		s.Budget.Warned = true
		return BudgetWarn, used
	}
	return BudgetOK, used
}

// Raise makes the run's budget the one asked for (a zero field of asked
// keeps that cap of the budget now, the configured one unless raised
// before), after the run spent cost and tokens; the new budget must be
// above what was used. It returns the new budget and whether the old one
// had paused the run.
func (s *State) Raise(configured *template.Budget, asked template.Budget, cost float64, tokens int64) (b template.Budget, wasPaused bool, err error) {
	if asked.MaxCostUSD < 0 || asked.MaxTokens < 0 {
		return b, false, errors.New("a budget must not be negative")
	}
	b = s.BudgetNow(configured)
	if asked.MaxCostUSD > 0 {
		b.MaxCostUSD = asked.MaxCostUSD
	}
	if asked.MaxTokens > 0 {
		b.MaxTokens = asked.MaxTokens
	}
	used := Used(b, cost, tokens)
	if used >= 1 {
		return b, false, fmt.Errorf("the new budget is not above what the run used (%s)", Describe(b, cost, tokens))
	}
	wasPaused = s.Budget.Paused
	s.Budget = BudgetState{MaxCostUSD: b.MaxCostUSD, MaxTokens: b.MaxTokens, Raised: true, Warned: used >= WarnAt}
	return b, wasPaused, nil
}
