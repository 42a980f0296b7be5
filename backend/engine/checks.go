package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/baton-app/baton/backend/checks"
	"github.com/baton-app/baton/backend/isolation"
	"github.com/baton-app/baton/backend/protocol"
	"github.com/baton-app/baton/backend/report"
	"github.com/baton-app/baton/backend/store"
	"github.com/baton-app/baton/backend/worktree"
)

// The project's checks, as Baton runs them itself (backend/checks): the
// template's config.checks, or those it detects, run once before the
// workers start (the baseline: round 0) and again each time the workers'
// results came together, before the aggregation (round N). A worktree run
// checks a detached check-out of its base and then of its run branch; a
// shared run checks its folder, where the workers wrote. The workers wait
// for the baseline. The verification prompt carries the results; a check
// the run broke makes the verification fail (a QA round fixes it when the
// template allows one) and keeps the run from a clean completed; a
// verification that says "pass" while such a check fails is a
// contradiction the report names.

// EventChecks: Baton ran (or starts to run) the project's checks; the
// message says what they found.
const EventChecks = "orchestrator:checks"

// checkState is the run's checks, stored with the run (runState.Checks).
type checkState struct {
	// On: the run checks its project (runs made before Baton did not).
	On bool `json:"on,omitempty"`
	// Named are the template's checks (none: detected).
	Named []string `json:"named,omitempty"`
	// Checks are the checks the run uses, Note what was found and chosen.
	Checks []checks.Check `json:"checks,omitempty"`
	Note   string         `json:"note,omitempty"`
	// Baseline: the baseline was taken. Rounds counts the rounds after it.
	Baseline bool `json:"baseline,omitempty"`
	Rounds   int  `json:"rounds,omitempty"`
	// Running is the round that runs (-1: none). A round that ran when
	// Baton stopped runs again.
	Running int `json:"running"`
}

// notRunning is checkState.Running when no round runs.
const notRunning = -1

// newChecks is the check state of a new run whose template names named.
func newChecks(named []string) *checkState {
	return &checkState{On: true, Named: named, Running: notRunning}
}

// restoredChecks is the stored check state of a run taken up again: a
// round that ran in the stopped process runs again.
func restoredChecks(st *checkState) *checkState {
	if st == nil {
		return &checkState{Running: notRunning}
	}
	st.Running = notRunning
	return st
}

// holdsWorkers reports whether the workers wait for the baseline.
func (c *checkState) holdsWorkers() bool { return c.On && !c.Baseline }

// running reports whether a round runs now.
func (c *checkState) running() bool { return c.Running != notRunning }

// afterDue reports whether the round after the workers of QA round
// remediation (0: the first workers) is still to run.
func (c *checkState) afterDue(remediation int) bool {
	return c.On && c.Baseline && c.Rounds < remediation+1
}

// checkRound is a round of checks that ended: its results, and the checks
// found where it ran.
type checkRound struct {
	round   int
	dir     string
	found   checks.Found
	results []checks.Result
	err     error
}

// startChecks starts round of the project's checks (0: the baseline) on a
// goroutine owned by the run; its results come back on r.checked. A
// worktree run checks a check-out of its base (baseline) or its run
// branch; a shared run its folder.
func (r *runner) startChecks(ctx context.Context, round int) error {
	var wr *worktree.Run
	rev := ""
	if r.iso != nil {
		if err := r.openWorkspace(ctx); err != nil {
			return r.fail(ctx, "the run's git worktree cannot be opened for its checks: "+err.Error())
		}
		w := *r.iso.Run
		wr, rev = &w, w.Base
		if round > 0 {
			rev = w.Branch
		}
	}
	c := r.checks
	c.Running = round
	named := checks.FromCommands(c.Named)
	known := slices.Clone(c.Checks)
	runner := checks.Runner{Timeout: r.tmpl.Config.CheckLimit()}
	cwd := r.run.Cwd
	msg := "Baton runs the project's checks on the result of the workers."
	if round == 0 {
		msg = "Baton takes a baseline of the project's checks before the workers start."
	}
	if err := r.apply(ctx, change{}.with(nil, newEvent(EventChecks, nil, msg))); err != nil {
		return err
	}
	r.e.wg.Add(1)
	go func() {
		defer r.e.wg.Done()
		res := checkRound{round: round, dir: cwd}
		done := func() {}
		if wr != nil {
			res.dir, done, res.err = isolation.CheckTree(ctx, *wr, cwd, rev)
		}
		if res.err == nil {
			res.found = chooseChecks(named, known, res.dir)
			res.results = runner.RunAll(ctx, res.dir, res.found.Checks)
		}
		done()
		select {
		case r.checked <- res:
		case <-ctx.Done():
		}
	}()
	return nil
}

// chooseChecks are the checks of a round in dir: the template's, else
// those found before (the baseline's) and those Detect finds now (a run
// may add what a check runs, such as the first tests).
func chooseChecks(named, known []checks.Check, dir string) checks.Found {
	if len(named) > 0 {
		return checks.Found{Checks: named, Why: []string{"the template"}}
	}
	found := checks.Detect(dir)
	for _, k := range slices.Backward(known) {
		if !slices.ContainsFunc(found.Checks, func(c checks.Check) bool { return c.Command == k.Command }) {
			found.Checks = append([]checks.Check{k}, found.Checks...)
		}
	}
	return found
}

// onChecked takes a round of checks that ended: its results are stored
// with their verdicts against the baseline, and what they say is told.
func (r *runner) onChecked(ctx context.Context, res checkRound) error {
	c := r.checks
	if c.Running != res.round {
		return nil // a round of a process or a state before this one
	}
	c.Running = notRunning
	if res.err != nil {
		// The check-out could not be made: the round did not run, and the
		// report says so rather than pass.
		res.results = nil
		res.found = checks.Found{}
		r.log.Warn("the project's checks could not run", "round", res.round, "err", res.err)
	}
	if res.round == 0 {
		c.Baseline = true
	} else {
		c.Rounds = res.round
	}
	c.Checks = res.found.Checks
	if len(res.found.Checks) > 0 && c.Note == "" {
		c.Note = res.found.Note()
		if len(c.Named) > 0 {
			c.Note = "Baton runs the template's checks: " + checks.Commands(res.found.Checks) + "."
		}
	}
	var baseline []checks.Result
	if res.round > 0 {
		stored, err := r.e.store.Checks(context.WithoutCancel(ctx), r.run.ID)
		if err != nil {
			r.log.Warn("read the baseline of the checks", "err", err)
		}
		baseline = baselineOf(stored)
	}
	now := r.e.now()
	rows := make([]store.CheckResult, 0, len(res.results))
	var said []string
	for i, cr := range res.results {
		verdict := checks.Baseline
		if res.round > 0 {
			verdict = checks.Judge(baseline, cr)
		}
		rows = append(rows, checkRow(r.run.ID, res.round, i, res.dir, cr, verdict, now))
		said = append(said, checks.Describe(cr, verdict))
	}
	msg := ""
	switch {
	case res.err != nil:
		msg = "The project's checks could not run: " + res.err.Error()
	case len(rows) == 0:
		msg = "No checks ran: " + strings.TrimPrefix(checks.NoneFound, "no checks ran: ") + "."
	case res.round == 0:
		msg = strings.TrimSpace(c.Note + " Before the workers: " + strings.Join(said, " "))
	default:
		msg = "After the workers: " + strings.Join(said, " ")
	}
	ch := change{Change: store.Change{Checks: rows}}.with(nil, newEvent(EventChecks, nil, msg))
	return r.apply(ctx, ch)
}

// checkRow is a check's result as stored.
func checkRow(runID string, round, pos int, dir string, cr checks.Result, v checks.Verdict, now time.Time) store.CheckResult {
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

// checkPrompt is what the verification prompt says of the checks Baton ran
// (template.VarCheckResults).
func checkPrompt(st *checkState, stored []store.CheckResult) string {
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

// checkedVerification is the verification answer v with the checks the
// run broke added as its issues: a "pass" while one fails becomes a
// failure, so a QA round can fix it. It returns v itself when no check
// the run broke fails.
func checkedVerification(v *protocol.Verification, stored []store.CheckResult) *protocol.Verification {
	issues := blamedIssues(stored)
	if len(issues) == 0 {
		return v
	}
	out := *v
	out.Status = "fail"
	out.Issues = append(slices.Clone(v.Issues), issues...)
	return &out
}

// checksReport is what the final report says of the project's checks:
// what ran before and after the workers and how, and a verification that
// said "pass" while a check failed (answers: the run's answers, oldest
// first). Nil for a run that did not check (made before Baton did).
func checksReport(run store.Run, stored []store.CheckResult, answers []store.PhaseAnswer) *report.Checks {
	var rs runState
	if len(run.State) > 0 {
		_ = json.Unmarshal(run.State, &rs)
	}
	if rs.Checks == nil || !rs.Checks.On {
		return nil
	}
	out := &report.Checks{Note: rs.Checks.Note, Baseline: []report.CheckRef{}, After: []report.CheckRef{}}
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
	out.Looked = rs.Checks.Baseline
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

// RunChecks are a run's checks as a view shows them.
type RunChecks struct {
	// Note says which checks Baton chose and why ("" before the baseline
	// ran, or when none were found: Results is empty then).
	Note string `json:"note"`
	// Running is the round that runs now (0: the baseline; nil: none).
	Running *int `json:"running,omitempty"`
	// Results are every round's results, the baseline first.
	Results []store.CheckResult `json:"results"`
}

// runChecks reads the checks of a stored run (nil: it does not check).
func runChecks(ctx context.Context, st *store.Store, run store.Run) (*RunChecks, error) {
	var rs runState
	if len(run.State) > 0 {
		if err := json.Unmarshal(run.State, &rs); err != nil {
			return nil, fmt.Errorf("run state: %w", err)
		}
	}
	if rs.Checks == nil || !rs.Checks.On {
		return nil, nil
	}
	results, err := st.Checks(ctx, run.ID)
	if err != nil {
		return nil, err
	}
	out := &RunChecks{Note: rs.Checks.Note, Results: results}
	if rs.Checks.running() && !store.Finished(run.Status) {
		n := rs.Checks.Running
		out.Running = &n
	}
	return out, nil
}
