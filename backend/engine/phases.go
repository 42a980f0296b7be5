package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/baton-app/baton/backend/checkrounds"
	"github.com/baton-app/baton/backend/prompts"
	"github.com/baton-app/baton/backend/protocol"
	"github.com/baton-app/baton/backend/report"
	"github.com/baton-app/baton/backend/runhost"
	"github.com/baton-app/baton/backend/session"
	"github.com/baton-app/baton/backend/store"
	"github.com/baton-app/baton/backend/tasklist"
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
			r.archive.stop(ctx, w)
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
		return illegalRun(r.status, RunAnalyzing)
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
	if err := r.enter(status, phase); err != nil {
		return err
	}
	if err := r.apply(ctx, change{}.with(nil, newEvent(EventStarted, nil, ""), newEvent(EventPhaseChanged, nil, ""))); err != nil {
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
		return r.limitHit(ctx, nil, *l) // a wait, not a re-prompt
	}
	if r.main.Outage() != nil {
		// The model could not be reached: it goes on once it is back.
		return r.mainGoOn(ctx, prompts.ModelBack, false)
	}
	if r.main.Cut() && r.main.Reprompts < r.tmpl.Config.MaxRetries {
		return r.mainGoOn(ctx, prompts.StoppedMidTurn, true)
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
	if err := r.e.host.Send(ctx, id, text); err != nil {
		return r.fail(ctx, fmt.Sprintf("send the re-prompt: %v", err))
	}
	r.follow.Mark(id, session.NoticeMessage)
	r.main.Again(at)
	return r.apply(ctx, answered.with(nil, newEvent(EventReprompted, nil, fmt.Sprintf("asked again for the %s answer (%d of %d): %s",
		r.main.Asked, r.main.Reprompts, r.tmpl.Config.MaxRetries, failure.Message))))
}

// mainGoOn sends the main session, whose turn stopped before it ended
// (why), the message to go on; reprompt counts it against the re-prompts.
// While the model is still away it waits.
func (r *runner) mainGoOn(ctx context.Context, why string, reprompt bool) error {
	if r.e.hostDown() {
		return nil
	}
	id := session.ID(r.run.MainSessionID)
	at := r.main.At
	if err := r.e.host.Send(ctx, id, prompts.GoOn(why, nil, false)); err != nil {
		return r.fail(ctx, fmt.Sprintf("send the message to go on: %v", err))
	}
	r.follow.Mark(id, session.NoticeMessage)
	r.main.WentOn(at, reprompt, r.e.now())
	return r.apply(ctx, change{}.with(nil, newEvent(EventResumed, nil, "the main session goes on: "+why)))
}

// answerRecord is a valid (or repaired) answer as stored.
func answerRecord(resp protocol.Response) (store.PhaseAnswer, error) {
	data, err := json.Marshal(resp.Data)
	if err != nil {
		return store.PhaseAnswer{}, fmt.Errorf("the %s answer: %w", resp.Phase, err)
	}
	a := store.PhaseAnswer{Phase: string(resp.Phase), Status: "valid", Data: data}
	if resp.Repaired() {
		a.Status = "repaired"
	}
	for _, rp := range resp.Repairs {
		a.Repairs = append(a.Repairs, rp.Description())
	}
	for _, w := range resp.Warnings {
		a.Errors = append(a.Errors, "warning: "+w.String())
	}
	return a, nil
}

// answer moves the run on with the main session's answer.
func (r *runner) answer(ctx context.Context, resp protocol.Response) error {
	ans, err := answerRecord(resp)
	if err != nil {
		return r.ledger.refuse(fmt.Errorf("save run %s: %w", r.run.ID, err))
	}
	ans.Attempt = r.main.Reprompts
	r.main.Answered()
	answered := change{Change: store.Change{Answers: []store.PhaseAnswer{ans}}}
	switch data := resp.Data.(type) {
	case *protocol.Analysis:
		if err := r.enter(RunPlanning, PhaseTaskPlanning); err != nil {
			return err
		}
		if err := r.apply(ctx, answered.with(nil, newEvent(EventAnalysisComplete, nil, data.Summary), newEvent(EventPhaseChanged, nil, ""))); err != nil {
			return err
		}
		return r.ask(ctx, template.PhaseTaskPlanning, protocol.PhaseTaskList, nil)
	case *protocol.TaskList:
		return r.planned(ctx, answered, data)
	case *protocol.Aggregation:
		if r.tmpl.Phases.Verification.Enabled {
			if err := r.enter(RunVerifying, PhaseVerification); err != nil {
				return err
			}
			if err := r.apply(ctx, answered.with(nil, newEvent(EventPhaseChanged, nil, data.Summary))); err != nil {
				return err
			}
			return r.ask(ctx, template.PhaseVerification, protocol.PhaseVerification, nil)
		}
		return r.complete(ctx, answered, data.Summary)
	case *protocol.Verification:
		// The checks Baton ran count over what the answer says: a check
		// the run broke is an issue of the verification.
		stored, err := r.e.store.Checks(context.WithoutCancel(ctx), r.run.ID)
		if err != nil {
			r.log.Warn("read the checks for the verification", "err", err)
		}
		tasks, summary, round := r.review.verified(checkrounds.Verified(data, stored), r.run.ID, &r.plan)
		if tasks == nil {
			return r.complete(ctx, answered, summary)
		}
		r.flows.Planned(tasks)
		if err := r.enter(RunRunning, PhaseWorkerExecution); err != nil {
			return err
		}
		ws := r.plan.add(r.run.ID, tasks)
		answered.Tasks = tasks
		ev := newEvent(EventRemediation, nil, round)
		ev.p.Tasks = tasks
		return r.apply(ctx, answered.with(ws, ev, newEvent(EventPhaseChanged, nil, "")).say(round))
	case *protocol.Review:
		ws := r.review.answered(data, &r.plan)
		if ws == nil {
			// Decided meanwhile (by the user): keep the answer, change nothing.
			return r.apply(ctx, answered)
		}
		decided, err := r.review.decide(ws, data, "the reviewer", &r.plan, r.e.now())
		if err != nil {
			return err
		}
		return r.apply(ctx, answered.and(decided))
	default:
		return r.fail(ctx, fmt.Sprintf("unexpected answer of phase %s", resp.Phase))
	}
}

// planned takes the task list: the run waits for its confirmation (or
// confirms it itself with config.autoConfirm).
func (r *runner) planned(ctx context.Context, c change, data *protocol.TaskList) error {
	tasks := tasklist.FromPlan(r.run.ID, data.Tasks)
	checkErr := CheckTasks(tasks, r.tmpl.Config.MaxTasks)
	tasks = tasklist.SetAsideDuplicates(tasks)
	skillNote := r.flows.Planned(tasks)
	if err := r.move(RunConfirming); err != nil {
		return err
	}
	r.plan.tasks = tasks
	r.plan.workers = map[string]*workerState{}
	c.Tasks, c.ReplaceTasks = tasks, true
	ready := newEvent(EventTasksReady, nil, "")
	ready.p.Tasks, ready.p.Groups = tasks, ParallelGroups(tasks)
	c = c.with(nil, ready, newEvent(EventPhaseChanged, nil, "")).say(skillNote)
	var tle *TaskListError
	if errors.As(checkErr, &tle) {
		msg := strings.TrimSpace(checkErr.Error() + "\n" + skillNote)
		ev := newEvent(EventTasksInvalid, nil, msg)
		ev.p.Problems = tle.Problems
		c = c.with(nil, ev).say(msg)
	}
	if err := r.apply(ctx, c); err != nil {
		return err
	}
	if checkErr == nil && r.tmpl.Config.AutoConfirm {
		if err := r.confirm(ctx, Modifications{}); err != nil {
			if r.ledger.broken() != nil {
				return err
			}
			r.log.Warn("auto-confirm", "err", err)
		}
	}
	return nil
}

// complete ends the run that reached its end with c and summary. Its
// outcome is read from the final report: completed only when nothing is
// left open (backend/report).
func (r *runner) complete(ctx context.Context, c change, summary string) error {
	now := r.e.now()
	r.main.Answered()
	if err := r.sync(); err != nil {
		return r.ledger.refuse(fmt.Errorf("save run %s: %w", r.run.ID, err))
	}
	rep := finalReport(ctx, r.e.store, r.log, r.run, &r.plan, c.Answers, r.iso.ResultHolds(ctx, r.run.Cwd, r.log))
	answers, err := r.e.store.Answers(context.WithoutCancel(ctx), r.run.ID)
	if err != nil {
		r.log.Warn("outcome: read the answers", "err", err)
	}
	outcome, issues := report.Outcome(rep, append(answers, c.Answers...))
	status, err := ParseRunStatus(outcome)
	if err != nil {
		return err
	}
	if err := r.move(status); err != nil {
		return err
	}
	r.run.CompletedAt = &now
	r.run.Issues = issues
	if err := r.sync(); err != nil {
		return r.ledger.refuse(fmt.Errorf("save run %s: %w", r.run.ID, err))
	}
	msg := summary
	if byUser := rep.Tasks.SkippedByUser; r.run.TasksFailed+r.run.TasksSkipped-byUser > 0 {
		msg = fmt.Sprintf("%d of %s completed, %d failed, %d skipped. %s", r.run.TasksCompleted,
			countOf(r.run.TasksTotal, "task", "tasks"), r.run.TasksFailed, r.run.TasksSkipped, summary)
	} else if byUser > 0 {
		msg = fmt.Sprintf("%d of %s completed; %s %s", r.run.TasksCompleted, countOf(r.run.TasksTotal-byUser, "task", "tasks"), strings.Join(rep.Notes, " "), summary)
	}
	if note := r.flows.Completed(); note != "" {
		msg += " " + note
	}
	r.run.Message = strings.TrimSpace(msg)
	rep.Status, rep.Message, rep.FinishedAt, rep.Issues = r.run.Status, r.run.Message, r.run.CompletedAt, issues
	c.final, c.report = true, &rep
	return r.apply(ctx, c.with(nil, newEvent(EventCompleted, nil, r.run.Message)))
}

// afterWorkers moves the run to aggregation when every task is done.
func (r *runner) afterWorkers(ctx context.Context) error {
	if (r.status != RunSpawning && r.status != RunRunning) || r.inflight > 0 || !r.plan.allDone() || (r.iso != nil && !r.iso.Settled(r.plan.tasks, r.plan.completed)) {
		return nil
	}
	if r.checks.IsRunning() {
		return nil // the checks of the result run
	}
	if r.checks.AfterDue(r.review.Remediation) {
		return r.startChecks(ctx, r.checks.Rounds+1)
	}
	if err := r.flushProgress(ctx); err != nil {
		return err
	}
	next, phase, tp, want := RunVerifying, PhaseVerification, template.PhaseVerification, protocol.PhaseVerification
	switch {
	case r.tmpl.Phases.Aggregation.Enabled:
		next, phase, tp, want = RunAggregating, PhaseAggregation, template.PhaseAggregation, protocol.PhaseAggregation
	case !r.tmpl.Phases.Verification.Enabled:
		return r.complete(ctx, change{}, "")
	}
	if err := r.enter(next, phase); err != nil {
		return err
	}
	if err := r.apply(ctx, change{}.with(nil, newEvent(EventPhaseChanged, nil, ""))); err != nil {
		return err
	}
	return r.ask(ctx, tp, want, nil)
}
