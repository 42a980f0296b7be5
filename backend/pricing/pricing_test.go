package pricing

import (
	"math"
	"testing"
)

func TestFor(t *testing.T) {
	for model, family := range map[string]string{
		"claude-opus-4-5-20251101":   "opus",
		"opus":                       "opus",
		"claude-opus-4-1-20250805":   "opus (4, 4.1, 3)",
		"claude-opus-4-20250514":     "opus (4, 4.1, 3)",
		"claude-3-opus-20240229":     "opus (4, 4.1, 3)",
		"claude-sonnet-4-5-20250929": "sonnet",
		"claude-sonnet-5-5":          "sonnet",
		"Sonnet":                     "sonnet",
		"claude-haiku-4-5-20251001":  "haiku",
		"claude-3-5-haiku-20241022":  "haiku 3.5",
		"claude-3-haiku-20240307":    "haiku 3",
	} {
		p, ok := For(model)
		if !ok || p.Family != family {
			t.Errorf("%s: %q %v, want %q", model, p.Family, ok, family)
		}
	}
	for _, m := range []string{"", "<synthetic>", "gpt-4"} {
		if _, ok := For(m); ok {
			t.Errorf("%q has a price", m)
		}
	}
}

func TestCost(t *testing.T) {
	// One million of each on sonnet: 3 + 15 + 0.30 + 3.75.
	c, ok := Cost("claude-sonnet-4-5", Usage{Input: 1e6, Output: 1e6, CacheRead: 1e6, CacheWrite: 1e6})
	if !ok || math.Abs(c-22.05) > 1e-9 {
		t.Errorf("sonnet: %v %v", c, ok)
	}
	c, _ = Cost("haiku", Usage{Input: 2000, Output: 500})
	if math.Abs(c-(2000*1.0+500*5.0)/1e6) > 1e-12 {
		t.Errorf("haiku: %v", c)
	}
	if len(Table()) != len(table) || PricesDate == "" {
		t.Error("table or date missing")
	}
}
