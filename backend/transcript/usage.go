package transcript

import (
	"encoding/json"

	"github.com/baton-app/baton/backend/pricing"
)

// UnmarshalJSON reads a usage in the Messages API's snake_case or in
// camelCase (inputTokens, outputTokens, cacheReadInputTokens,
// cacheCreationInputTokens); a snake_case field present wins.
func (u *usageJSON) UnmarshalJSON(b []byte) error {
	var v struct {
		In         *int64 `json:"input_tokens"`
		Out        *int64 `json:"output_tokens"`
		CacheWrite *int64 `json:"cache_creation_input_tokens"`
		CacheRead  *int64 `json:"cache_read_input_tokens"`
		InC        *int64 `json:"inputTokens"`
		OutC       *int64 `json:"outputTokens"`
		CacheWrC   *int64 `json:"cacheCreationInputTokens"`
		CacheRdC   *int64 `json:"cacheReadInputTokens"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	pick := func(a, b *int64) int64 {
		switch {
		case a != nil:
			return *a
		case b != nil:
			return *b
		}
		return 0
	}
	*u = usageJSON{InputTokens: pick(v.In, v.InC), OutputTokens: pick(v.Out, v.OutC),
		CacheCreationInputTokens: pick(v.CacheWrite, v.CacheWrC), CacheReadInputTokens: pick(v.CacheRead, v.CacheRdC)}
	return nil
}

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
