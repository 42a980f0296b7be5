package engine

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/baton-app/baton/backend/limits"
	"github.com/baton-app/baton/backend/mainsession"
	"github.com/baton-app/baton/backend/session"
	"github.com/baton-app/baton/backend/store"
	"github.com/baton-app/baton/backend/template"
)

// Limits and the budget (backend/limits) as the run applies them:
// a session whose turn ended on a rate, overload or usage limit waits in
// its session (limitHit), the run starts nothing new until the reset and
// then sends the continue message to as many waiting sessions as the
// lowered worker count allows (limitStep, resumeWaiting); the budget
// warns at 80 % and pauses the run at its cap (budgetStep), and
// Engine.RaiseBudget resumes it.

// simulatedHost is a host that says whether its costs are simulated
// (hosts.Manager).
type simulatedHost interface{ Simulated() bool }

// limitHit is the change a limit l makes that the session of ws (nil: the
// main session) hit at now: the session waits, and the run with it; a
// worker's lowers the worker count from maxWorkers (jitter: the backoff's factor).
func limitHit(st *limits.State, main *mainsession.Session, ws *workerState, l limits.Limit, now time.Time, jitter float64, maxWorkers int, log *slog.Logger) change {
	w := st.Hit(l, now, jitter)
	msg := limits.WaitText(*st.WaitUntil, now)
	var who []*workerState
	var detail string
	if ws == nil {
		st.MainWait = &w
		main.Hold()
		detail = fmt.Sprintf("the main session: %s (%s)", l.Kind.Describe(), msg)
	} else {
		st.Lower(maxWorkers)
		ws.holdFor(w, msg)
		who = []*workerState{ws}
		detail = fmt.Sprintf("%s: %s (%s); workers at once lowered to %d", ws.w.TaskID, l.Kind.Describe(), msg, st.Cap)
		log.Info("limit", "task", ws.w.TaskID, "kind", l.Kind, "until", w.Until, "cap", st.Cap)
	}
	if l.Message != "" {
		detail += ": " + l.Message
	}
	e := newEvent(EventLimitWaiting, ws, detail)
	e.P.ResumesAt = st.WaitUntil
	e.P.Limit = string(l.Kind)
	return change{}.with(who, e).say(msg)
}

// limitStep is what the run's wait for a limit says now (pos: where the
// run stands, msg its message): a change to apply (the reset is due, and
// the user resumes; or the wait is over) and whether the waiting sessions
// resume, as many as the lowered worker count allows (auto: the automatic
// resume is on).
func limitStep(pos *runPos, st *limits.State, now time.Time, auto func() bool, msg string) (*change, bool) {
	if pos.status.Held() || pos.status.Finished() {
		return nil, false
	}
	switch st.Next(now, auto) {
	case limits.Hold:
		return nil, false
	case limits.Due:
		text := "the limit has reset: resume the run (Resume now)"
		e := newEvent(EventLimitDue, nil, text)
		e.P.Limit = string(st.WaitKind)
		c := change{}.with(nil, e).say(text)
		return &c, false
	case limits.Over:
		c := limitOver(st, msg)
		return &c, true
	}
	return nil, true
}

// limitOver ends the run's wait for a limit; msg is the run's message,
// which says no more that it waits.
func limitOver(l *limits.State, msg string) change {
	kind := l.End()
	e := newEvent(EventLimitResumed, nil, "the limit has reset and the run resumes")
	e.P.Limit = string(kind)
	c := change{}.with(nil, e)
	if strings.HasPrefix(msg, "waiting for the limit") || strings.HasPrefix(msg, "the limit has reset") {
		c = c.say("")
	}
	return c
}

// resumeWaiting sends the continue message to the main session and to
// waiting workers, as many as the worker count allows (one at least when
// none runs).
func (r *runner) resumeWaiting(ctx context.Context) error {
	if w := r.limits.MainWait; w != nil {
		id := session.ID(r.run.MainSessionID)
		err := r.e.host.Send(ctx, id, limits.ContinueMain)
		r.limits.MainWait = nil
		if err != nil {
			return r.fail(ctx, fmt.Sprintf("resume the main session after the %s: %v", w.Kind.Describe(), err))
		}
		r.follow.Mark(id, session.NoticeMessage)
		r.main.AskedAt = r.e.now()
		if err := r.apply(ctx, change{}); err != nil {
			return err
		}
	}
	var waiting []*workerState
	for _, ws := range r.plan.inOrder() {
		if ws.status != WorkerRunning || ws.book.Wait == nil {
			continue
		}
		if ws.book.Wait.Kind == limits.Budget && r.limits.Budget.Paused {
			continue
		}
		waiting = append(waiting, ws)
	}
	if len(waiting) == 0 {
		return nil
	}
	active := r.plan.busy() - len(waiting)
	free := r.limits.MaxWorkers(r.tmpl.Config.MaxWorkers) - active
	if free < 1 && active == 0 {
		free = 1
	}
	for i, ws := range waiting {
		if i >= free {
			break
		}
		id := session.ID(ws.w.SessionID)
		kind := ws.book.Release(r.e.now())
		if err := r.e.host.Send(ctx, id, limits.Continue); err != nil {
			if err := r.workerFailed(ctx, ws, fmt.Sprintf("resume after the %s: %v", kind.Describe(), err), true); r.ledger.Halted(&r.run, err) {
				return err
			}
			continue
		}
		r.follow.Mark(id, session.NoticeMessage)
		if err := r.apply(ctx, ws.continued(kind, r.e.now())); r.ledger.Halted(&r.run, err) {
			return err
		}
	}
	return nil
}

// spent is the run's cost and tokens so far.
func spent(plan *taskPlan, main *mainsession.Session) (float64, int64) {
	t := plan.tally()
	mainCost, _ := main.Cost()
	return t.costUSD + mainCost, t.inputTokens + t.outputTokens + main.InputTokens + main.OutputTokens
}

// budgetStep is what the budget says now: a warning at 80 % of it, or at
// the cap a pause of the run (pos), whose running workers finish their
// turn while nothing new starts; false: nothing to say.
func budgetStep(pos *runPos, st *limits.State, budget *template.Budget, plan *taskPlan, main *mainsession.Session) (change, bool, error) {
	if pos.status.Finished() {
		return change{}, false, nil
	}
	b := st.BudgetNow(budget)
	cost, tokens := spent(plan, main)
	step, used := st.CheckBudget(b, cost, tokens, pos.status.Active() && pos.status.CanMove(RunPaused))
	switch step {
	case limits.BudgetPause:
		pos.resume = pos.status
		if err := pos.move(RunPaused); err != nil {
			return change{}, false, err
		}
		msg := "the budget is used up (" + limits.Describe(b, cost, tokens) +
			"): running workers finish their turn, nothing new starts; raise the budget to go on"
		return change{}.with(nil, newEvent(EventBudgetReached, nil, msg), newEvent(EventPaused, nil, msg)).say(msg), true, nil
	case limits.BudgetWarn:
		msg := fmt.Sprintf("%.0f %% of the budget used (%s)", used*100, limits.Describe(b, cost, tokens))
		return change{}.with(nil, newEvent(EventBudgetWarning, nil, msg)), true, nil
	}
	return change{}, false, nil
}

// ResumeAfterLimit ends a run's wait for a limit now: its waiting workers
// go on in their sessions (the Inbox's Resume now, and the way on when the
// automatic resume is off).
func (e *Engine) ResumeAfterLimit(ctx context.Context, runID string) error {
	return e.do(ctx, runID, func(ctx context.Context, r *runner) error {
		if !r.limits.Waiting() {
			return fmt.Errorf("run %s is not waiting for a limit: %w", runID, ErrIllegalTransition)
		}
		if err := r.apply(ctx, limitOver(&r.limits, r.run.Message)); err != nil {
			return err
		}
		return r.resumeWaiting(ctx)
	})
}

// RaiseBudget sets a run's budget (a zero field keeps that cap; the new
// budget must be above what the run used) and resumes the run if its
// budget paused it.
func (e *Engine) RaiseBudget(ctx context.Context, runID string, nb template.Budget) error {
	return e.do(ctx, runID, func(ctx context.Context, r *runner) error {
		if r.status.Finished() {
			return fmt.Errorf("run %s is %s: %w", r.run.ID, r.status, ErrIllegalTransition)
		}
		cost, tokens := spent(&r.plan, r.main)
		b, wasPaused, err := r.limits.Raise(r.tmpl.Config.Budget, nb, cost, tokens)
		if err != nil {
			return fmt.Errorf("%w: %w", err, ErrBadRequest)
		}
		c := change{}.with(nil, newEvent(EventBudgetRaised, nil, "budget raised to "+limits.Describe(b, cost, tokens)))
		if strings.HasPrefix(r.run.Message, "the budget is used up") {
			c = c.say("")
		}
		if err := r.apply(ctx, c); err != nil {
			return err
		}
		if wasPaused && r.status == RunPaused {
			if err := r.resumeRun(ctx); err != nil {
				return err
			}
		}
		return r.resumeWaiting(ctx)
	})
}

// autoResume reports whether runs resume by themselves after a limit.
func (e *Engine) autoResume() bool {
	return e.autoResumeFn == nil || e.autoResumeFn()
}

// limitsRow is what the run row shows of the limits s and of budget b, the
// run's budget now; costEstimated says whether some of its cost came from
// the price table. (Here, not in backend/limits, so that the hosts that
// read the CLI's retries through that package link no store.)
func limitsRow(s *limits.State, b template.Budget, costEstimated bool) store.RunLimits {
	return store.RunLimits{WaitingUntil: s.WaitUntil, WaitingFor: string(s.WaitKind), ResumeDue: s.Due,
		WorkerCap: s.Cap, BudgetUSD: b.MaxCostUSD, BudgetTokens: b.MaxTokens,
		BudgetWarned: s.Budget.Warned, BudgetPaused: s.Budget.Paused, CostSimulated: s.Simulated, CostEstimated: costEstimated}
}
