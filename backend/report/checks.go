package report

import (
	"fmt"
	"strings"
)

// Checks is what the final report says of the project's checks, which
// Baton ran itself: before the workers (the baseline) and after their
// results came together (the last round).
type Checks struct {
	// Ran: Baton ran at least one check; when false, Note says "No checks
	// ran" and why. A report never says the checks passed when none ran.
	Ran bool `json:"ran"`
	// Looked: Baton looked for the project's checks (the run reached its
	// workers); a run that ended before has no limitation for them.
	Looked bool `json:"looked"`
	// Note says which checks Baton chose and why (or that none ran).
	Note     string     `json:"note"`
	Baseline []CheckRef `json:"baseline"`
	After    []CheckRef `json:"after"`
	// Contradiction: the verification said "pass" while a check the run
	// broke failed.
	Contradiction string `json:"contradiction,omitempty"`
	// PreExistingNote: the verification said "pass" while checks failed
	// that failed before the run too.
	PreExistingNote string `json:"preExistingNote,omitempty"`
}

// CheckRef is one check as it ran.
type CheckRef struct {
	Name       string `json:"name"`
	Command    string `json:"command"`
	Status     string `json:"status"`
	ExitCode   int    `json:"exitCode"`
	DurationMS int64  `json:"durationMs"`
	// Verdict compares it with the baseline: passes, fixed, broken,
	// pre-existing, new-failure (baseline in the baseline).
	Verdict string `json:"verdict"`
	Tail    string `json:"tail,omitempty"`
	Message string `json:"message,omitempty"`
	// Sentence says how it went, as the report writes it.
	Sentence string `json:"sentence"`
}

// Kinds of limitations about checks.
const (
	// LimitChecks: no check ran, a check failed before the run too, or
	// one the run broke.
	LimitChecks = "checks"
	// LimitContradiction: an agent's answer says what the checks do not.
	LimitContradiction = "contradiction"
)

// blamed reports whether the run caused the check's failure.
func (c CheckRef) blamed() bool { return c.Verdict == "broken" || c.Verdict == "new-failure" }

// Blamed lists the checks of the last round that the run broke.
func (c *Checks) Blamed() []CheckRef {
	var out []CheckRef
	for _, r := range c.After {
		if r.blamed() {
			out = append(out, r)
		}
	}
	return out
}

// AddChecks puts the run's checks c (nil: the run did not check) into the
// report, with what they leave open as limitations: none ran, a check the
// run broke, a failure that was there before, a contradiction.
func (rep *FinalReport) AddChecks(c *Checks) {
	rep.Checks = c
	if c == nil {
		return
	}
	if !c.Ran && c.Looked {
		rep.Limitations = append(rep.Limitations, Limitation{Kind: LimitChecks, Text: c.Note})
	}
	for _, r := range c.After {
		switch {
		case r.blamed():
			rep.Limitations = append(rep.Limitations, Limitation{Kind: LimitChecks, Severity: "high", Text: r.Sentence})
		case r.Verdict == "pre-existing":
			rep.Limitations = append(rep.Limitations, Limitation{Kind: LimitChecks, Text: r.Sentence})
		}
	}
	if c.Contradiction != "" {
		rep.Limitations = append(rep.Limitations, Limitation{Kind: LimitContradiction, Severity: "high", Text: c.Contradiction})
	}
	if c.PreExistingNote != "" {
		rep.Limitations = append(rep.Limitations, Limitation{Kind: LimitContradiction, Text: c.PreExistingNote})
	}
}

// checkIssues are the outcome's issues of the checks: the checks the run
// broke, and a verification that said "pass" over them.
func checkIssues(c *Checks) []string {
	if c == nil {
		return nil
	}
	var out []string
	if b := c.Blamed(); len(b) > 0 {
		var names []string
		for _, r := range b {
			s := "`" + r.Command + "`"
			switch r.Status {
			case "failed":
				s += fmt.Sprintf(" (exit %d)", r.ExitCode)
			case "timeout":
				s += " (ended at its time limit)"
			}
			names = append(names, s)
		}
		out = append(out, fmt.Sprintf("%d %s that did not fail before the run %s after it: %s.", len(b),
			plural(len(b), "check", "checks"), plural(len(b), "fails", "fail"), issueItems(names)))
	}
	if c.Contradiction != "" {
		out = append(out, c.Contradiction)
	}
	return out
}

// writeChecks writes the checks section of the Markdown report.
func writeChecks(b *strings.Builder, c *Checks) {
	b.WriteString("\n### Checks Baton ran\n\n")
	if c.Note != "" {
		fmt.Fprintf(b, "%s\n\n", mdText(c.Note))
	}
	if !c.Ran {
		return
	}
	b.WriteString("| Check | Before the run | After the run | Verdict |\n|---|---|---|---|\n")
	seen := map[string]bool{}
	for _, a := range c.After {
		seen[a.Command] = true
		before := "—"
		for _, r := range c.Baseline {
			if r.Command == a.Command {
				before = checkCell(r)
			}
		}
		fmt.Fprintf(b, "| `%s` | %s | %s | %s |\n", cell(a.Command), before, checkCell(a), a.Verdict)
	}
	for _, r := range c.Baseline {
		if !seen[r.Command] {
			fmt.Fprintf(b, "| `%s` | %s | not run | — |\n", cell(r.Command), checkCell(r))
		}
	}
	for _, a := range c.After {
		if a.Status == "passed" || strings.TrimSpace(a.Tail) == "" {
			continue
		}
		fmt.Fprintf(b, "\n`%s` (%s) ended with:\n\n```\n%s\n```\n", a.Command, a.Verdict, lastLines(a.Tail, 20))
	}
}

// checkCell is how a check went, in a table cell.
func checkCell(r CheckRef) string {
	secs := fmt.Sprintf("%.1f s", float64(r.DurationMS)/1000)
	switch r.Status {
	case "passed":
		return "passed, " + secs
	case "failed":
		return fmt.Sprintf("failed (exit %d), %s", r.ExitCode, secs)
	case "timeout":
		return "ended at its limit, " + secs
	}
	return "could not run"
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.ReplaceAll(strings.Join(lines, "\n"), "```", "'''")
}
