// Package pricing is Baton's price table: what a model's tokens cost, per
// model family, for hosts that report tokens without a cost (and for the
// simulator, whose costs are simulated). The Claude Code CLI reports its own
// cost; Baton uses that whenever a host gives one.
//
// The prices are Anthropic's published list prices per million tokens as of
// PricesDate (standard API, no batch discount; cache writes at the 5-minute
// rate). Prices change: the table is a fallback estimate, dated so that its
// age shows.
package pricing

import (
	"strings"
)

// PricesDate is the day the prices of the table were taken.
const PricesDate = "2025-11-24"

// Price is what a model family costs, in US dollars per million tokens.
type Price struct {
	Family     string  `json:"family"`
	Input      float64 `json:"input"`
	Output     float64 `json:"output"`
	CacheRead  float64 `json:"cacheRead"`
	CacheWrite float64 `json:"cacheWrite"`
}

// Usage is what a request or a turn used.
type Usage struct {
	Input      int64 // uncached input tokens
	Output     int64
	CacheRead  int64
	CacheWrite int64
}

// entry maps the model names that contain one of match to a price.
type entry struct {
	match []string
	price Price
}

// table is tried in order: the specific older models before the families'
// current prices.
var table = []entry{
	{[]string{"opus-4-1", "opus-4-0", "opus-4-2025", "claude-opus-4@", "3-opus", "opus-3"},
		Price{Family: "opus (4, 4.1, 3)", Input: 15, Output: 75, CacheRead: 1.50, CacheWrite: 18.75}},
	{[]string{"opus"}, Price{Family: "opus", Input: 5, Output: 25, CacheRead: 0.50, CacheWrite: 6.25}},
	{[]string{"sonnet"}, Price{Family: "sonnet", Input: 3, Output: 15, CacheRead: 0.30, CacheWrite: 3.75}},
	{[]string{"3-5-haiku", "haiku-3-5"}, Price{Family: "haiku 3.5", Input: 0.80, Output: 4, CacheRead: 0.08, CacheWrite: 1}},
	{[]string{"3-haiku", "haiku-3"}, Price{Family: "haiku 3", Input: 0.25, Output: 1.25, CacheRead: 0.03, CacheWrite: 0.30}},
	{[]string{"haiku"}, Price{Family: "haiku", Input: 1, Output: 5, CacheRead: 0.10, CacheWrite: 1.25}},
}

// For returns the price of model (an id such as "claude-sonnet-4-5-20250929"
// or an alias such as "opus"); false for a model the table does not know.
func For(model string) (Price, bool) {
	m := strings.ToLower(model)
	if m == "" {
		return Price{}, false
	}
	for _, e := range table {
		for _, s := range e.match {
			if strings.Contains(m, s) {
				return e.price, true
			}
		}
	}
	return Price{}, false
}

// Cost is what u costs on model; false when the model is unknown.
func Cost(model string, u Usage) (float64, bool) {
	p, ok := For(model)
	if !ok {
		return 0, false
	}
	return p.Cost(u), true
}

// Cost is what u costs at p.
func (p Price) Cost(u Usage) float64 {
	return (float64(u.Input)*p.Input + float64(u.Output)*p.Output +
		float64(u.CacheRead)*p.CacheRead + float64(u.CacheWrite)*p.CacheWrite) / 1e6
}

// Table returns the price table (for the README and the settings view).
func Table() []Price {
	out := make([]Price, len(table))
	for i, e := range table {
		out[i] = e.price
	}
	return out
}
