// Package doctor is the report that every session host kind's doctor
// writes: what was checked, what was found, and for each failed check one
// sentence saying how to fix it. "baton doctor" prints it and the Settings
// view's Test connection shows it, whatever the kind. Its one rule: a
// report is OK only when its kind can be used as it is configured. It
// imports nothing of Baton.
package doctor

import (
	"fmt"
	"io"
)

// Report is one kind's diagnosis.
type Report struct {
	// Host is the kind's name as settings.json writes it, Label as the UI
	// names it; the host registry sets both.
	Host  string `json:"host"`
	Label string `json:"label"`
	// Target is what was reached: an endpoint, a binary's path.
	Target string `json:"target"`
	// Version is the version of what answered (Claude Desktop's, the
	// CLI's), when known.
	Version string  `json:"version"`
	Checks  []Check `json:"checks"`
	// Lists are itemized findings, such as the LocalSessions methods the
	// page has.
	Lists []List `json:"lists"`
	OK    bool   `json:"ok"`
	// Verdict says, for a report that is OK, what Baton can do now.
	Verdict string `json:"verdict,omitempty"`
}

// Check is one line of the report. Fix is one sentence saying how to fix a
// failed check.
type Check struct {
	Name   string `json:"name"`
	OK     bool   `json:"ok"`
	Detail string `json:"detail"`
	Fix    string `json:"fix,omitempty"`
}

// List is a titled list of findings.
type List struct {
	Title string `json:"title"`
	Items []Item `json:"items"`
}

// Item is one finding of a List: OK or not, the word that says which
// (State: "present", "missing"), and a note ("required").
type Item struct {
	Name  string `json:"name"`
	OK    bool   `json:"ok"`
	State string `json:"state"`
	Note  string `json:"note,omitempty"`
}

// Failed returns the first failed check, and whether there is one.
func (r Report) Failed() (Check, bool) {
	for _, c := range r.Checks {
		if !c.OK {
			return c, true
		}
	}
	return Check{}, false
}

// Print writes the report for a person: one line per check ("ok" or
// "FAIL", its name, what was found) with the fix under a failure, then the
// lists. Names are padded to the longest, and to at least 9 characters.
func (r Report) Print(w io.Writer) {
	width := 9
	for _, c := range r.Checks {
		width = max(width, len(c.Name))
	}
	for _, c := range r.Checks {
		mark := "ok  "
		if !c.OK {
			mark = "FAIL"
		}
		fmt.Fprintf(w, "%s %-*s %s\n", mark, width, c.Name, c.Detail)
		if c.Fix != "" {
			fmt.Fprintf(w, "     fix: %s\n", c.Fix)
		}
	}
	for _, l := range r.Lists {
		if len(l.Items) == 0 {
			continue
		}
		fmt.Fprintln(w, l.Title+":")
		for _, it := range l.Items {
			line := fmt.Sprintf("  %-26s %s", it.Name, it.State)
			if it.Note != "" {
				line += " (" + it.Note + ")"
			}
			fmt.Fprintln(w, line)
		}
	}
}
