// Package checkrounds is a run's rounds of the project's checks
// (backend/checks): the state stored with the run, a round run in the
// run's result (a worktree run in a check-out of its base or its branch),
// the rows each round stores with its verdicts against the baseline, and
// what the verification prompt, the QA loop and the final report say of
// them. It decides; the engine stores and tells.
package checkrounds

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/baton-app/baton/backend/checks"
	"github.com/baton-app/baton/backend/isolation"
	"github.com/baton-app/baton/backend/store"
	"github.com/baton-app/baton/backend/worktree"
)

// State is a run's checks, stored with the run.
type State struct {
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

// NotRunning is State.Running when no round runs.
const NotRunning = -1

// New is the check state of a new run whose template names named.
func New(named []string) *State {
	return &State{On: true, Named: named, Running: NotRunning}
}

// Restored is the stored check state of a run taken up again: a round that
// ran in the stopped process runs again.
func Restored(st *State) *State {
	if st == nil {
		return &State{Running: NotRunning}
	}
	st.Running = NotRunning
	return st
}

// HoldsWorkers reports whether the workers wait for the baseline.
func (c *State) HoldsWorkers() bool { return c.On && !c.Baseline }

// IsRunning reports whether a round runs now.
func (c *State) IsRunning() bool { return c.Running != NotRunning }

// AfterDue reports whether the round after the workers of QA round
// remediation (0: the first workers) is still to run.
func (c *State) AfterDue(remediation int) bool {
	return c.On && c.Baseline && c.Rounds < remediation+1
}

// Round is a round of checks that ended: its results, and the checks found
// where it ran.
type Round struct {
	Round   int
	Dir     string
	Found   checks.Found
	Results []checks.Result
	Err     error
}

// Start marks round (0: the baseline) as running and returns what to run
// it with and what to tell.
func (c *State) Start(round int, timeout time.Duration) (Runner, string) {
	c.Running = round
	msg := "Baton runs the project's checks on the result of the workers."
	if round == 0 {
		msg = "Baton takes a baseline of the project's checks before the workers start."
	}
	return Runner{round: round, named: checks.FromCommands(c.Named), known: slices.Clone(c.Checks),
		run: checks.Runner{Timeout: timeout}}, msg
}

// Runner runs one round; it holds nothing of the run's state, so it runs
// on a goroutine of its own.
type Runner struct {
	round int
	named []checks.Check
	known []checks.Check
	run   checks.Runner
}

// Run runs the round in cwd, or (wr not nil) in a check-out of rev of wr's
// repository.
func (rn Runner) Run(ctx context.Context, wr *worktree.Run, cwd, rev string) Round {
	res := Round{Round: rn.round, Dir: cwd}
	done := func() {}
	if wr != nil {
		res.Dir, done, res.Err = isolation.CheckTree(ctx, *wr, cwd, rev)
	}
	if res.Err == nil {
		res.Found = Choose(rn.named, rn.known, res.Dir)
		res.Results = rn.run.RunAll(ctx, res.Dir, res.Found.Checks)
	}
	done()
	return res
}

// Choose are the checks of a round in dir: the template's, else those
// found before (the baseline's) and those Detect finds now (a run may add
// what a check runs, such as the first tests).
func Choose(named, known []checks.Check, dir string) checks.Found {
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

// Ended takes a round that ended (stale: a round of a process or a state
// before this one): it returns the rows to store, with their verdicts
// against baseline (the stored baseline's results), and what to tell.
func (c *State) Ended(res Round, baseline []store.CheckResult, runID string, now time.Time) (rows []store.CheckResult, msg string, stale bool) {
	if c.Running != res.Round {
		return nil, "", true
	}
	c.Running = NotRunning
	if res.Err != nil {
		// The check-out could not be made: the round did not run, and the
		// report says so rather than pass.
		res.Results = nil
		res.Found = checks.Found{}
	}
	if res.Round == 0 {
		c.Baseline = true
	} else {
		c.Rounds = res.Round
	}
	c.Checks = res.Found.Checks
	if len(res.Found.Checks) > 0 && c.Note == "" {
		c.Note = res.Found.Note()
		if len(c.Named) > 0 {
			c.Note = "Baton runs the template's checks: " + checks.Commands(res.Found.Checks) + "."
		}
	}
	base := baselineOf(baseline)
	rows = make([]store.CheckResult, 0, len(res.Results))
	var said []string
	for i, cr := range res.Results {
		verdict := checks.Baseline
		if res.Round > 0 {
			verdict = checks.Judge(base, cr)
		}
		rows = append(rows, row(runID, res.Round, i, res.Dir, cr, verdict, now))
		said = append(said, checks.Describe(cr, verdict))
	}
	switch {
	case res.Err != nil:
		msg = "The project's checks could not run: " + res.Err.Error()
	case len(rows) == 0:
		msg = "No checks ran: " + strings.TrimPrefix(checks.NoneFound, "no checks ran: ") + "."
	case res.Round == 0:
		msg = strings.TrimSpace(c.Note + " Before the workers: " + strings.Join(said, " "))
	default:
		msg = "After the workers: " + strings.Join(said, " ")
	}
	return rows, msg, false
}
