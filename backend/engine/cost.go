package engine

import (
	"fmt"

	"github.com/baton-app/baton/backend/pricing"
	"github.com/baton-app/baton/backend/store"
)

// Cost where the host gives only tokens: every assistant entry's usage is
// priced from Baton's price table (backend/pricing) as it is counted, and a
// session's cost is the host's own whenever the host reported one (the
// Claude Code CLI's results, Claude Code's cost-state lines), else the
// priced one, marked estimated.

// usageCost is what usage u of model costs by the price table (0 for a
// model the table does not know).
func usageCost(model string, u usageJSON) float64 {
	c, _ := pricing.Cost(model, pricing.Usage{Input: u.InputTokens, Output: u.OutputTokens,
		CacheRead: u.CacheReadInputTokens, CacheWrite: u.CacheCreationInputTokens})
	return c
}

// pricedAdd counts an assistant entry's usage in book (usageBook.add) and
// returns the new tokens and what they cost by the price table.
func pricedAdd(book *usageBook, id, model string, u usageJSON) (n tokens, usd float64) {
	prev := book.msgs[id]
	n = book.add(id, u)
	if id == "" {
		return n, usageCost(model, u)
	}
	return n, max(0, usageCost(model, book.msgs[id])-usageCost(model, prev))
}

// costUSD is the session's cost: the host's own when it reported one, else
// the one priced from its tokens; estimated says which.
func (c *transcriptCursor) costUSD() (usd float64, estimated bool) {
	if c.CostUSD > 0 || c.PricedUSD == 0 {
		return c.CostUSD, false
	}
	return c.PricedUSD, true
}

// CostLabel is how a run's cost is written: simulated on the simulator,
// estimated where it came from the price table.
func CostLabel(usd float64, l store.RunLimits) string {
	s := fmt.Sprintf("$%.4f", usd)
	switch {
	case l.CostSimulated:
		s += " (simulated)"
	case l.CostEstimated:
		s += " (estimated from Baton's price table of " + pricing.PricesDate + ")"
	}
	return s
}
