package checkrounds

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/baton-app/baton/backend/checks"
	"github.com/baton-app/baton/backend/protocol"
	"github.com/baton-app/baton/backend/report"
	"github.com/baton-app/baton/backend/store"
)

// row is a check's result as stored.
func row(runID string, round, pos int, dir string, cr checks.Result, v checks.Verdict, now time.Time) store.CheckResult {
	return store.CheckResult{RunID: runID, Round: round, Position: pos, Name: cr.Name, Command: cr.Command,
		Status: string(cr.Status), ExitCode: cr.ExitCode, DurationMS: cr.Duration.Milliseconds(), Tail: cr.Tail,
		Message: cr.Message, Verdict: string(v), Dir: dir, CreatedAt: now}
}

// resultOf is a stored check result as backend/checks reads it.
func resultOf(c store.CheckResult) checks.Result {
	return checks.Result{Check: checks.Check{Name: c.Name, Command: c.Command}, Status: checks.Status(c.Status),
		ExitCode: c.ExitCode, Duration: time.Duration(c.DurationMS) * time.Millisecond, Tail: c.Tail, Message: c.Message}
}

// baselineOf is the baseline among stored results.
func baselineOf(stored []store.CheckResult) []checks.Result {
	var out []checks.Result
	for _, c := range stored {
		if c.Round == 0 {
			out = append(out, resultOf(c))
		}
	}
	return out
}

// lastRound is the results of the last round after the workers (nil: none
// ran).
func lastRound(stored []store.CheckResult) []store.CheckResult {
	last := 0
	for _, c := range stored {
		last = max(last, c.Round)
	}
	if last == 0 {
		return nil
	}
	var out []store.CheckResult
	for _, c := range stored {
		if c.Round == last {
			out = append(out, c)
		}
	}
	return out
}

// Prompt is what the verification prompt says of the checks Baton ran
// (template.VarCheckResults).
func (st *State) Prompt(stored []store.CheckResult) string {
	var b strings.Builder
	b.WriteString("## The project's checks, as Baton ran them\n\n")
	after := lastRound(stored)
	if !st.On {
		b.WriteString("Baton did not run the project's checks for this run.\n")
		return b.String()
	}
	if len(after) == 0 {
		b.WriteString("No checks ran: the template names none and Baton found none in the project. " +
			"Do not say that the project builds or that its tests pass unless you ran them yourself; say what you checked and how.\n")
		return b.String()
	}
	b.WriteString("Baton ran these commands itself in the run's result, after the workers, and once before them as a baseline. " +
		"They are facts: the verification passes only when no check that passed before the run fails now.\n\n")
	for _, c := range after {
		fmt.Fprintf(&b, "- %s\n", checks.Describe(resultOf(c), checks.Verdict(c.Verdict)))
		if c.Status != string(checks.Passed) {
			if tail := strings.TrimSpace(checks.LastLines(c.Tail, 15)); tail != "" {
				fmt.Fprintf(&b, "  The end of its output:\n  ```\n  %s\n  ```\n", strings.ReplaceAll(tail, "\n", "\n  "))
			}
		}
	}
	return b.String()
}

// blamedIssues are the verification issues of the checks the run broke in
// its last round: each a problem a QA round can fix.
func blamedIssues(stored []store.CheckResult) []protocol.VerificationIssue {
	var out []protocol.VerificationIssue
	for _, c := range lastRound(stored) {
		if !checks.Verdict(c.Verdict).Blamed() {
			continue
		}
		d := checks.Describe(resultOf(c), checks.Verdict(c.Verdict))
		if tail := strings.TrimSpace(checks.LastLines(c.Tail, 10)); tail != "" {
			d += " Its output ends with:\n" + tail
		}
		out = append(out, protocol.VerificationIssue{Description: "Baton's check " + d + " Make it pass.", Severity: "high"})
	}
	return out
}

// Verified is the verification answer v with the checks the
// run broke added as its issues: a "pass" while one fails becomes a
// failure, so a QA round can fix it. It returns v itself when no check
// the run broke fails.
func Verified(v *protocol.Verification, stored []store.CheckResult) *protocol.Verification {
	issues := blamedIssues(stored)
	if len(issues) == 0 {
		return v
	}
	out := *v
	out.Status = "fail"
	out.Issues = append(slices.Clone(v.Issues), issues...)
	return &out
}

// Report is what the final report says of the project's checks (st: the
// run's stored state): what ran before and after the workers and how, and
// a verification that said "pass" while a check failed (answers: the run's
// answers, oldest first). Nil for a run that did not check (made before
// Baton did).
func (st *State) Report(stored []store.CheckResult, answers []store.PhaseAnswer) *report.Checks {
	if st == nil || !st.On {
		return nil
	}
	out := &report.Checks{Note: st.Note, Baseline: []report.CheckRef{}, After: []report.CheckRef{}}
	for _, c := range stored {
		ref := report.CheckRef{Name: c.Name, Command: c.Command, Status: c.Status, ExitCode: c.ExitCode,
			DurationMS: c.DurationMS, Verdict: c.Verdict, Tail: c.Tail, Message: c.Message,
			Sentence: checks.Describe(resultOf(c), checks.Verdict(c.Verdict))}
		if c.Round == 0 {
			out.Baseline = append(out.Baseline, ref)
		}
	}
	for _, c := range lastRound(stored) {
		out.After = append(out.After, report.CheckRef{Name: c.Name, Command: c.Command, Status: c.Status, ExitCode: c.ExitCode,
			DurationMS: c.DurationMS, Verdict: c.Verdict, Tail: c.Tail, Message: c.Message,
			Sentence: checks.Describe(resultOf(c), checks.Verdict(c.Verdict))})
	}
	out.Ran = len(out.Baseline)+len(out.After) > 0
	out.Looked = st.Baseline
	switch {
	case !out.Ran && out.Looked:
		out.Note = "No checks ran: " + strings.TrimPrefix(checks.NoneFound, "no checks ran: ") + "."
	case !out.Ran:
		out.Note = "No checks ran: the run ended before its workers, and Baton runs the project's checks around them."
	}
	if v := latestVerification(answers); v != nil && v.Status == "pass" {
		var failing, blamed []string
		for _, c := range out.After {
			if c.Status == string(checks.Passed) {
				continue
			}
			failing = append(failing, "`"+c.Command+"`")
			if checks.Verdict(c.Verdict).Blamed() {
				blamed = append(blamed, "`"+c.Command+"`")
			}
		}
		switch {
		case len(blamed) > 0:
			out.Contradiction = fmt.Sprintf("The verification says pass, but %s %s after the run.", strings.Join(blamed, ", "),
				map[bool]string{true: "fails", false: "fail"}[len(blamed) == 1])
		case len(failing) > 0:
			out.PreExistingNote = fmt.Sprintf("The verification says pass; %s %s as before the run.", strings.Join(failing, ", "),
				map[bool]string{true: "fails", false: "fail"}[len(failing) == 1])
		}
	}
	return out
}

// latestVerification is the newest usable verification answer (nil: none).
func latestVerification(answers []store.PhaseAnswer) *protocol.Verification {
	for i := len(answers) - 1; i >= 0; i-- {
		a := answers[i]
		if a.Phase != string(protocol.PhaseVerification) || (a.Status != "valid" && a.Status != "repaired") {
			continue
		}
		var v protocol.Verification
		if json.Unmarshal(a.Data, &v) == nil {
			return &v
		}
	}
	return nil
}

// View are a run's checks as a view shows them.
type View struct {
	// Note says which checks Baton chose and why ("" before the baseline
	// ran, or when none were found: Results is empty then).
	Note string `json:"note"`
	// Running is the round that runs now (0: the baseline; nil: none).
	Running *int `json:"running,omitempty"`
	// Results are every round's results, the baseline first.
	Results []store.CheckResult `json:"results"`
}

// Read reads the checks of a stored run whose state is st (nil: it does
// not check).
func (st *State) Read(ctx context.Context, s *store.Store, run store.Run) (*View, error) {
	if st == nil || !st.On {
		return nil, nil
	}
	results, err := s.Checks(ctx, run.ID)
	if err != nil {
		return nil, err
	}
	out := &View{Note: st.Note, Results: results}
	if st.IsRunning() && !store.Finished(run.Status) {
		n := st.Running
		out.Running = &n
	}
	return out, nil
}
