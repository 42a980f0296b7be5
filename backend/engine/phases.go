package engine

import (
	"context"
	"errors"
	"fmt"

	"github.com/baton-app/baton/backend/prompts"
	"github.com/baton-app/baton/backend/protocol"
	"github.com/baton-app/baton/backend/runhost"
	"github.com/baton-app/baton/backend/runstatus"
	"github.com/baton-app/baton/backend/session"
	"github.com/baton-app/baton/backend/store"
	"github.com/baton-app/baton/backend/template"
)

// The phase machine of the main session: begin, ask and ask again, read its
// answers and move the run through analysis, planning, confirmation, worker
// execution, aggregation and verification to its outcome, or fail it.

// askAgain sends the prompt of the phase the run is in again (in worker
// execution: the review of the first task awaiting one).
func (r *runner) askAgain(ctx context.Context) error {
	switch r.status {
	case RunAnalyzing:
		return r.ask(ctx, template.PhaseAnalysis, protocol.PhaseAnalysis, nil)
	case RunPlanning:
		return r.ask(ctx, template.PhaseTaskPlanning, protocol.PhaseTaskList, nil)
	case RunAggregating:
		return r.ask(ctx, template.PhaseAggregation, protocol.PhaseAggregation, nil)
	case RunVerifying:
		return r.ask(ctx, template.PhaseVerification, protocol.PhaseVerification, nil)
	case RunSpawning, RunRunning:
		ws := r.review.next(&r.plan)
		if ws == nil {
			return nil
		}
		id := ws.w.TaskID
		r.review.Reviewing = id
		err := r.ask(ctx, template.PhaseReview, protocol.PhaseReview, r.prompts.Review(id, r.plan.task(id), string(ws.book.Report)))
		if err != nil {
			r.review.Reviewing = ""
		}
		return err
	}
	return nil
}

// fail ends the run in error with the reason.
func (r *runner) fail(ctx context.Context, reason string) error {
	if ctx.Err() != nil {
		return nil // stopping: nothing failed; Restore takes it up from the store
	}
	if r.status.Finished() {
		return nil
	}
	if r.e.hostDown() {
		// The host is lost: nothing failed yet. The run waits for it and
		// does this step again when it is back (or stops as interrupted).
		return session.LostError(reason)
	}
	if err := r.move(RunError); err != nil {
		return err
	}
	r.run.Error = reason
	now := r.e.now()
	r.run.CompletedAt = &now
	var ws []*workerState
	for _, w := range r.plan.workers {
		if !w.status.Done() && w.status != WorkerTimeout {
			r.archive.Stop(ctx, w.live(), w.w.TaskID)
			if err := w.move(WorkerCancelled); err != nil {
				return err
			}
			w.w.Error = "the run failed: " + reason
			ws = append(ws, w)
		}
	}
	r.main.Answered()
	c := change{}.with(ws, newEvent(EventError, nil, reason))
	c.final = true
	return r.apply(ctx, c)
}

func (r *runner) begin(ctx context.Context) error {
	if r.status != RunCreated {
		return runstatus.IllegalRun(r.status, RunAnalyzing)
	}
	now := r.e.now()
	r.run.StartedAt = &now
	hctx, cancel := context.WithTimeout(ctx, r.e.hostWait)
	if h, ok := runhost.Identify(hctx, r.e.identifier()); ok {
		r.run.Host = h
	}
	cancel()
	status, phase, tp, want := RunPlanning, PhaseTaskPlanning, template.PhaseTaskPlanning, protocol.PhaseTaskList
	if r.tmpl.Phases.Analysis.Enabled {
		status, phase, tp, want = RunAnalyzing, PhaseAnalysis, template.PhaseAnalysis, protocol.PhaseAnalysis
	}
	if err := r.enter(status, phase, &r.run); err != nil {
		return err
	}
	if err := r.apply(ctx, change{}.with(nil, newEvent(EventStarted, nil, ""), newEvent(EventPhaseChanged, nil, ""))); err != nil {
		return err
	}
	if err := r.warmSoon(ctx); err != nil { // the first workers' sessions start beside the main one
		return err
	}
	return r.ask(ctx, tp, want, nil)
}

// ask sends the prompt of a phase, with values, to the main session
// (starting it for the first phase). Only entries after the prompt can
// answer it. A prompt that cannot be sent fails the run (and returns the
// reason).
func (r *runner) ask(ctx context.Context, phase template.Phase, want protocol.Phase, values map[string]any) error {
	if values == nil {
		values = r.prompts.Phase(phase, r.plan.tasks, r.plan.rows())
	}
	if phase == template.PhaseVerification {
		stored, err := r.e.store.Checks(context.WithoutCancel(ctx), r.run.ID)
		if err != nil {
			r.log.Warn("read the checks for the verification prompt", "err", err)
		}
		if values == nil {
			values = map[string]any{}
		}
		values[template.VarCheckResults] = r.checks.Prompt(stored)
	}
	text, err := r.prompts.Render(phase, values)
	if err != nil {
		return errors.Join(err, r.fail(ctx, fmt.Sprintf("render the %s prompt: %v", phase, err)))
	}
	var at session.Cursor
	if r.main.NeedsStart(ctx, r.run.MainSessionID) {
		// The id is chosen and stored before the session is started, as a
		// worker's is, so a resume finds the session instead of starting
		// a second one.
		if r.run.MainSessionID == "" {
			id, err := MainSessionID(r.run.ID)
			if err != nil {
				return errors.Join(err, r.fail(ctx, fmt.Sprintf("start the main session: %v", err)))
			}
			r.run.MainSessionID = string(id)
			if err := r.apply(ctx, change{}); err != nil {
				return err
			}
		}
		chosen := session.ID(r.run.MainSessionID)
		r.e.track(chosen, r)
		title := clip("Baton: "+r.run.Request, 80)
		opts := r.prompts.WithSystem(session.StartOptions{Cwd: r.run.Cwd, Message: text, Title: title, ID: chosen,
			Model: r.tmpl.Config.Models.Main, PermissionMode: r.tmpl.Config.PermissionMode}, phase, values)
		soFar := ""
		if r.main.Gone() {
			soFar = prompts.Summary(r.run, r.plan.tasks, r.plan.rows())
		}
		id, err := r.main.Start(ctx, opts, soFar)
		if err != nil {
			return errors.Join(err, r.fail(ctx, fmt.Sprintf("start the main session: %v", err)))
		}
		if id != chosen {
			r.e.untrack(chosen)
			r.run.MainSessionID = string(id)
			r.e.track(id, r)
		}
	} else {
		// What the session wrote so far counts (its usage); the answer
		// starts after it.
		id := session.ID(r.run.MainSessionID)
		what := "read the main session"
		if at, err = r.follow.ReadToEnd(ctx, id, &r.main.Cursor); err == nil {
			what = fmt.Sprintf("send the %s prompt", phase)
			err = r.e.host.Send(ctx, id, text)
		}
		// A host lost in the middle (before its link said so) is waited
		// for: this step runs again when it is back.
		if err != nil && lostHost(err) {
			return session.LostError(fmt.Sprintf("%s: %v", what, err))
		}
		// A host may say "no such session" in its own words: whether the
		// session is gone is asked of the host (main.lost), whatever the
		// failed call said.
		if err != nil && r.main.Lost(ctx, r.run.MainSessionID) {
			return r.ask(ctx, phase, want, values)
		}
		if err != nil {
			return errors.Join(err, r.fail(ctx, fmt.Sprintf("%s: %v", what, err)))
		}
	}
	r.main.Sent(at, want, r.e.now())
	// A notice may have come before the session was known: look once now.
	r.follow.Mark(session.ID(r.run.MainSessionID), session.NoticeMessage)
	return r.apply(ctx, change{})
}

// checkMain reads what the main session wrote since the last read: its
// answer moves the run on; a turn that ended without one is asked again,
// up to maxRetries times, then fails the run; a limit is waited for.
func (r *runner) checkMain(ctx context.Context) error {
	id := session.ID(r.run.MainSessionID)
	d, err := r.follow.Absorb(ctx, id, &r.main.Cursor)
	if err != nil && r.main.Lost(ctx, r.run.MainSessionID) {
		return nil // the next step asks a new main session
	}
	if err != nil {
		r.log.Warn("read main session", "err", err)
		if r.main.Failures() >= 5 {
			return r.fail(ctx, fmt.Sprintf("the main session cannot be read: %v", err))
		}
		return nil
	}
	r.main.Took(d)
	if c := byMode(r.gate, r.run.MainSessionID, r.tmpl.Config.PermissionMode, nil, d, r.e.now()); len(c.Decisions) > 0 {
		if err := r.apply(ctx, c); err != nil {
			return err
		}
	}
	if ev, say, changed := r.main.RetryNote(r.run.Message); changed {
		c := change{}.say(say)
		if ev != "" {
			c = change{}.with(nil, newEvent(EventModelRetry, nil, ev)).say(say)
		}
		if err := r.apply(ctx, c); err != nil {
			return err
		}
	}
	res := r.parser.ParseEntries(r.main.Entries(), protocol.Options{Phase: r.main.Asked})
	var foreign error
	if resp, ok := res.Last(r.main.Asked); ok {
		// A review answer counts only for the task it was asked about.
		if foreign = r.review.foreign(resp); foreign == nil {
			return r.answer(ctx, resp)
		}
	}
	if !r.main.Replied() {
		return nil
	}
	if _, over := r.follow.TurnOver(ctx, id, &r.main.Cursor); !over {
		return nil
	}
	if l := r.main.Limit(); l != nil {
		return r.apply(ctx, limitHit(&r.limits, r.main, nil, *l, r.e.now(), r.e.jitter(), r.tmpl.Config.MaxWorkers, r.log)) // a wait, not a re-prompt
	}
	// The model could not be reached: it goes on once it is back. Stopped
	// in the middle: it goes on, counted against the re-prompts. While the
	// model is still away it waits.
	if out := r.main.Outage() != nil; out || r.main.Cut() && r.main.Reprompts < r.tmpl.Config.MaxRetries {
		why := prompts.ModelBack
		if !out {
			why = prompts.StoppedMidTurn
		}
		if r.e.hostDown() {
			return nil
		}
		at := r.main.At
		return r.tell(ctx, nil, prompts.GoOn(why, nil, false), "message to go on", func() change {
			r.main.WentOn(at, !out, r.e.now())
			return change{}.with(nil, newEvent(EventResumed, nil, "the main session goes on: "+why))
		})
	}
	if why := r.main.Failed(); why != "" {
		// The CLI's own sentence: asking again would get the same.
		return r.fail(ctx, "the main session ended with an error: "+why)
	}
	failure := protocol.Failure{Kind: protocol.FailureNoBlock, Phase: r.main.Asked, Message: "no answer block"}
	if res.Failure != nil {
		failure = *res.Failure
	}
	if foreign != nil {
		failure = protocol.Failure{Kind: protocol.FailureWrongTask, Phase: r.main.Asked, Message: foreign.Error()}
	}
	if r.main.Asked == protocol.PhaseReview {
		failure.TaskID = r.review.Reviewing
	}
	ans := store.PhaseAnswer{Phase: string(r.main.Asked), Attempt: r.main.Reprompts, Status: "invalid",
		Errors: []string{failure.Message}}
	for _, is := range failure.Errors {
		ans.Errors = append(ans.Errors, is.String())
	}
	answered := change{Change: store.Change{Answers: []store.PhaseAnswer{ans}}}
	if r.main.Reprompts >= r.tmpl.Config.MaxRetries {
		if err := r.apply(ctx, answered); err != nil {
			return err
		}
		if tl := res.PartialTaskList(r.main.Asked); tl != nil {
			// Seed 000: the user provides what is still missing, in the
			// review (or a plan file in the terminal).
			r.main.Answered()
			return r.planned(ctx, change{}, tl)
		}
		return r.fail(ctx, fmt.Sprintf("the %s answer is still missing or invalid after %d re-prompts: %s",
			r.main.Asked, r.main.Reprompts, failure.Message))
	}
	text := r.prompts.Reprompt(failure, r.main.Asked)
	at := r.main.At
	return r.tell(ctx, nil, text, "re-prompt", func() change {
		r.main.Again(at)
		return answered.with(nil, newEvent(EventReprompted, nil, fmt.Sprintf("asked again for the %s answer (%d of %d): %s",
			r.main.Asked, r.main.Reprompts, r.tmpl.Config.MaxRetries, failure.Message)))
	})
}
