package engine

import (
	"context"
	"log/slog"
	"time"

	"github.com/baton-app/baton/backend/checkrounds"
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
	run, msg := r.checks.Start(round, r.tmpl.Config.CheckLimit())
	cwd := r.run.Cwd
	if err := r.apply(ctx, change{}.with(nil, newEvent(EventChecks, nil, msg))); err != nil {
		return err
	}
	r.e.wg.Add(1)
	go func() {
		defer r.e.wg.Done()
		res := run.Run(ctx, wr, cwd, rev)
		select {
		case r.checked <- res:
		case <-ctx.Done():
		}
	}()
	return nil
}

// checked is the change a round of checks that ended makes: its results
// stored with their verdicts against the baseline, and what they say told;
// false for a round of a process or a state before this one.
func checked(ctx context.Context, st *store.Store, c *checkrounds.State, res checkrounds.Round, runID string, now time.Time, log *slog.Logger) (change, bool) {
	var baseline []store.CheckResult
	if res.Round > 0 && c.Running == res.Round {
		var err error
		if baseline, err = st.Checks(context.WithoutCancel(ctx), runID); err != nil {
			log.Warn("read the baseline of the checks", "err", err)
		}
	}
	rows, msg, stale := c.Ended(res, baseline, runID, now)
	if stale {
		return change{}, false
	}
	if res.Err != nil {
		log.Warn("the project's checks could not run", "round", res.Round, "err", res.Err)
	}
	return change{Change: store.Change{Checks: rows}}.with(nil, newEvent(EventChecks, nil, msg)), true
}

// RunChecks are a run's checks as a view shows them.
type RunChecks = checkrounds.View
