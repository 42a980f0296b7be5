package checks

import (
	"fmt"
	"strings"
	"time"
)

// Verdict is what a check's result after a run says once compared with
// the baseline taken before it.
type Verdict string

// The verdicts.
const (
	// Passes: it passes now (and passed before, or had no baseline).
	Passes Verdict = "passes"
	// Fixed: it failed before the run and passes now.
	Fixed Verdict = "fixed"
	// Broken: it passed before the run and fails now: the run broke it.
	Broken Verdict = "broken"
	// PreExisting: it failed before the run and still fails: not the
	// run's doing.
	PreExisting Verdict = "pre-existing"
	// NewFailure: it had no baseline (the run added what it checks) and
	// fails now.
	NewFailure Verdict = "new-failure"
	// Baseline: a result of the baseline itself.
	Baseline Verdict = "baseline"
)

// Blamed reports whether the verdict is a failure the run caused.
func (v Verdict) Blamed() bool { return v == Broken || v == NewFailure }

// Judge compares r, a result after the run, with the baseline's result of
// the same command.
func Judge(baseline []Result, r Result) Verdict {
	var before *Result
	for i := range baseline {
		if baseline[i].Command == r.Command {
			before = &baseline[i]
			break
		}
	}
	switch {
	case r.Status.OK() && before != nil && !before.Status.OK():
		return Fixed
	case r.Status.OK():
		return Passes
	case before == nil:
		return NewFailure
	case before.Status.OK():
		return Broken
	}
	return PreExisting
}

// Describe says how a check went in one sentence, with its verdict when
// it is a result after the run.
func Describe(r Result, v Verdict) string {
	var b strings.Builder
	fmt.Fprintf(&b, "`%s` ", r.Command)
	switch r.Status {
	case Passed:
		fmt.Fprintf(&b, "passed (%s)", Seconds(r.Duration))
	case Failed:
		fmt.Fprintf(&b, "failed (exit %d, %s)", r.ExitCode, Seconds(r.Duration))
	case TimedOut:
		fmt.Fprintf(&b, "was ended at its time limit (%s)", Seconds(r.Duration))
	default:
		b.WriteString("could not run")
	}
	switch v {
	case Fixed:
		b.WriteString("; it failed before the run")
	case Broken:
		b.WriteString("; it passed before the run, so the run broke it")
	case PreExisting:
		b.WriteString("; it failed before the run too (pre-existing)")
	case NewFailure:
		b.WriteString("; it was not there before the run")
	}
	if r.Message != "" && r.Status != Failed {
		fmt.Fprintf(&b, ": %s", strings.TrimSuffix(r.Message, "."))
	}
	b.WriteString(".")
	return b.String()
}

// Seconds writes a duration as seconds with one decimal ("3.2 s").
func Seconds(d time.Duration) string {
	return fmt.Sprintf("%.1f s", d.Seconds())
}

// LastLines is the last n lines of a check's output tail, for a prompt or
// a sentence.
func LastLines(tail string, n int) string {
	lines := strings.Split(strings.TrimRight(tail, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
