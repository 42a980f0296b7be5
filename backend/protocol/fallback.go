package protocol

import (
	"math"
	"regexp"
)

// Fallback is what keyword detection guessed from text with no structured
// answer. It is a hint, flagged as unstructured wherever it is used.
type Fallback struct {
	Detected bool `json:"detected"`
	// ProbablePhase is analysis, task_list, progress, completion or error.
	ProbablePhase string `json:"probable_phase,omitempty"`
	// Confidence is the share of the phase's patterns that matched
	// (seed 002), from 0 to 1, rounded to two decimals.
	Confidence float64 `json:"confidence"`
	// Matches lists, per phase that matched at all, the patterns that did.
	Matches []FallbackMatch `json:"matches,omitempty"`
}

// FallbackMatch is the evidence for one phase.
type FallbackMatch struct {
	Phase      string   `json:"phase"`
	Confidence float64  `json:"confidence"`
	Patterns   []string `json:"patterns"`
}

// fallbackRule is one phase of the seed 002 FALLBACK_PATTERNS.
type fallbackRule struct {
	phase    string
	patterns []*regexp.Regexp
}

// fallbackRules returns the patterns of seed 002, in the order that breaks
// ties (a structured phase before error).
func fallbackRules() []fallbackRule {
	return []fallbackRule{
		{"analysis", []*regexp.Regexp{
			regexp.MustCompile(`(?i)analysis\s+(?:is\s+)?(?:complete|done|finished)`),
			regexp.MustCompile(`(?i)(?:found|identified)\s+\d+\s+(?:components?|modules?|files?)`),
			regexp.MustCompile(`(?i)recommend(?:ing|s?)\s+\d+\s+(?:tasks?|splits?)`),
		}},
		{"task_list", []*regexp.Regexp{
			regexp.MustCompile(`(?i)(?:task|breakdown)\s+list\s+(?:is\s+)?(?:ready|complete|created)`),
			regexp.MustCompile(`(?i)created?\s+\d+\s+tasks?`),
			regexp.MustCompile(`(?i)here\s+(?:are|is)\s+the\s+task`),
		}},
		{"completion", []*regexp.Regexp{
			regexp.MustCompile(`(?i)task\s+(?:is\s+)?(?:complete|done|finished)`),
			regexp.MustCompile(`(?i)successfully\s+(?:completed|created|documented)`),
		}},
		{"progress", []*regexp.Regexp{
			regexp.MustCompile(`(?i)working\s+on`),
			regexp.MustCompile(`(?i)currently\s+(?:processing|documenting|analyzing)`),
			regexp.MustCompile(`(?i)progress:\s*\d+%`),
		}},
		{"error", []*regexp.Regexp{
			regexp.MustCompile(`(?i)(?:error|failed|could\s*n[o']t)`),
			regexp.MustCompile(`(?i)unable\s+to`),
		}},
	}
}

// fallbackTable is compiled once; it is never modified.
var fallbackTable = fallbackRules()

// maxFallbackText bounds the text keyword detection reads: the end of a long
// reply, where agents state their outcome.
const maxFallbackText = 64 << 10

// KeywordFallback guesses the phase of text that holds no structured answer
// with the patterns of seed 002. For each phase, confidence = matched
// patterns / patterns of the phase; the phase with the highest confidence
// wins, ties going to the earlier phase in the order analysis, task_list,
// completion, progress, error.
func KeywordFallback(text string) Fallback {
	if len(text) > maxFallbackText {
		cut := len(text) - maxFallbackText
		for cut < len(text) && !startsRune(text[cut]) {
			cut++
		}
		text = text[cut:]
	}
	var fb Fallback
	for _, rule := range fallbackTable {
		var hit []string
		for _, re := range rule.patterns {
			if re.MatchString(text) {
				hit = append(hit, re.String())
			}
		}
		if len(hit) == 0 {
			continue
		}
		conf := math.Round(float64(len(hit))/float64(len(rule.patterns))*100) / 100
		fb.Matches = append(fb.Matches, FallbackMatch{Phase: rule.phase, Confidence: conf, Patterns: hit})
		if conf > fb.Confidence {
			fb.Detected, fb.ProbablePhase, fb.Confidence = true, rule.phase, conf
		}
	}
	return fb
}
