package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/baton-app/baton/backend/protocol"
	"github.com/baton-app/baton/backend/session"
	"github.com/baton-app/baton/backend/store"
	"github.com/baton-app/baton/backend/template"
)

// The phase machine of the main session: begin, ask and ask again, read its
// answers and move the run through analysis, planning, confirmation, worker
// execution, aggregation and verification to completed, or fail it.

// askAgain sends the prompt of the phase the run is in again.
func (r *runner) askAgain(ctx context.Context) error {
	switch r.status {
	case RunAnalyzing:
		return r.ask(ctx, template.PhaseAnalysis, protocol.PhaseAnalysis)
	case RunPlanning:
		return r.ask(ctx, template.PhaseTaskPlanning, protocol.PhaseTaskList)
	case RunAggregating:
		return r.ask(ctx, template.PhaseAggregation, protocol.PhaseAggregation)
	case RunVerifying:
		return r.ask(ctx, template.PhaseVerification, protocol.PhaseVerification)
	case RunSpawning, RunRunning:
		return r.askReview(ctx)
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
			r.stopSession(ctx, w)
			if err := w.move(WorkerCancelled); err != nil {
				return err
			}
			w.w.Error = "the run failed: " + reason
			ws = append(ws, w)
		}
	}
	r.main.Asked = ""
	var change store.Change
	r.finalReport(ctx, &change)
	return r.commit(ctx, change, ws, r.ev(EventError, nil, reason))
}

func (r *runner) begin(ctx context.Context) error {
	if r.status != RunCreated {
		return illegalRun(r.status, RunAnalyzing)
	}
	now := r.e.now()
	r.run.StartedAt = &now
	status, phase, tp, want := RunPlanning, PhaseTaskPlanning, template.PhaseTaskPlanning, protocol.PhaseTaskList
	if r.tmpl.Phases.Analysis.Enabled {
		status, phase, tp, want = RunAnalyzing, PhaseAnalysis, template.PhaseAnalysis, protocol.PhaseAnalysis
	}
	if err := r.enter(status, phase); err != nil {
		return err
	}
	if err := r.commit(ctx, store.Change{}, nil, r.ev(EventStarted, nil, ""), r.ev(EventPhaseChanged, nil, "")); err != nil {
		return err
	}
	return r.ask(ctx, tp, want)
}

// ask sends the prompt of a phase to the main session (starting it for the
// first phase). Only entries after the prompt can answer it.
func (r *runner) ask(ctx context.Context, phase template.Phase, want protocol.Phase) error {
	return r.askWith(ctx, phase, want, r.isoPhaseValues(phase, r.phaseValues(phase)))
}

// askWith is ask with the given values. A prompt that cannot be sent fails
// the run (and returns the reason).
func (r *runner) askWith(ctx context.Context, phase template.Phase, want protocol.Phase, values map[string]any) error {
	text, err := r.render(phase, values)
	if err != nil {
		return errors.Join(err, r.fail(ctx, fmt.Sprintf("render the %s prompt: %v", phase, err)))
	}
	hctx, cancel := r.hostCtx(ctx)
	defer cancel()
	var at session.Cursor
	start := r.run.MainSessionID == "" || r.mainGone
	if !start && r.main.Asked == "" && r.main.transcriptCursor.Cursor.Index == 0 {
		// An id was stored but nothing was asked yet: the process may have
		// stopped between storing the id and starting the session. Start
		// it only when the host does not have it.
		_, serr := r.e.host.Session(hctx, session.ID(r.run.MainSessionID))
		start = errors.Is(serr, session.ErrNoSession)
	}
	if start {
		// The id is chosen and stored before the session is started, as a
		// worker's is, so a resume finds the session instead of starting
		// a second one.
		if r.run.MainSessionID == "" {
			id, err := MainSessionID(r.run.ID)
			if err != nil {
				return errors.Join(err, r.fail(ctx, fmt.Sprintf("start the main session: %v", err)))
			}
			r.run.MainSessionID = string(id)
			if err := r.commit(ctx, store.Change{}, nil); err != nil {
				return err
			}
		}
		chosen := session.ID(r.run.MainSessionID)
		r.e.track(chosen, r)
		if r.mainGone {
			// The host lost the main session: a new one (under the same
			// id) starts with what the run did so far.
			text = r.runSoFar() + text
			r.main.transcriptCursor = transcriptCursor{InputTokens: r.main.InputTokens,
				OutputTokens: r.main.OutputTokens, CostUSD: r.main.CostUSD}
		}
		title := clip("Baton: "+r.run.Request, 80)
		id, err := r.e.host.Start(hctx, r.withSystem(session.StartOptions{Cwd: r.run.Cwd, Message: text, Title: title, ID: chosen,
			Model: r.tmpl.Config.Models.Main, PermissionMode: r.tmpl.Config.PermissionMode}, phase, values))
		if err != nil {
			// The call failed, but the host may have created the session.
			if _, serr := r.e.host.Session(hctx, chosen); serr != nil {
				return errors.Join(err, r.fail(ctx, fmt.Sprintf("start the main session: %v", err)))
			}
			r.log().Info("the main session exists although its start failed", "err", err)
			id = chosen
		}
		r.mainGone = false
		if id != chosen {
			r.e.untrack(chosen)
			r.run.MainSessionID = string(id)
			r.e.track(id, r)
		}
	} else {
		at, err = r.follow.readToEnd(hctx, session.ID(r.run.MainSessionID), &r.main.transcriptCursor)
		if err != nil && errors.Is(err, session.ErrNoSession) && r.lostMain(ctx) {
			return r.askWith(ctx, phase, want, values)
		}
		if err != nil {
			return errors.Join(err, r.fail(ctx, fmt.Sprintf("read the main session: %v", err)))
		}
		if err := r.e.host.Send(hctx, session.ID(r.run.MainSessionID), text); err != nil {
			if errors.Is(err, session.ErrNoSession) && r.lostMain(ctx) {
				return r.askWith(ctx, phase, want, values)
			}
			return errors.Join(err, r.fail(ctx, fmt.Sprintf("send the %s prompt: %v", phase, err)))
		}
	}
	r.main.reset(at)
	r.main.Asked = want
	r.main.Reprompts = 0
	r.main.AskedAt = r.e.now()
	// A notice may have come before the session was known: look once now.
	r.markDirty(session.ID(r.run.MainSessionID), session.NoticeMessage)
	return r.commit(ctx, store.Change{}, nil)
}

func (r *runner) checkMain(ctx context.Context) error {
	id := session.ID(r.run.MainSessionID)
	d, err := r.follow.absorb(ctx, id, &r.main.transcriptCursor)
	if err != nil && errors.Is(err, session.ErrNoSession) && r.lostMain(ctx) {
		return nil // the next step asks a new main session
	}
	if err != nil {
		r.log().Warn("read main session", "err", err)
		if r.main.failures >= 5 {
			return r.fail(ctx, fmt.Sprintf("the main session cannot be read: %v", err))
		}
		return nil
	}
	if d.lastAction != "" || d.inputTokens > 0 {
		if d.lastAction != "" {
			r.main.action = d.lastAction
		}
		r.main.progressed = true
	}
	res := r.parser.ParseEntries(r.main.entries, protocol.Options{Phase: r.main.Asked})
	if resp, ok := res.Last(r.main.Asked); ok {
		return r.answer(ctx, resp)
	}
	if !r.main.assistant && !r.main.result {
		return nil
	}
	if _, over := r.follow.turnOver(ctx, id, &r.main.transcriptCursor); !over {
		return nil
	}
	if l := r.main.limit; l != nil {
		return r.mainLimitHit(ctx, *l) // a wait, not a re-prompt
	}
	failure := protocol.Failure{Kind: protocol.FailureNoBlock, Phase: r.main.Asked, Message: "no answer block"}
	if res.Failure != nil {
		failure = *res.Failure
	}
	ans := store.PhaseAnswer{Phase: string(r.main.Asked), Attempt: r.main.Reprompts, Status: "invalid",
		Errors: []string{failure.Message}}
	for _, is := range failure.Errors {
		ans.Errors = append(ans.Errors, is.String())
	}
	if r.main.Reprompts >= r.tmpl.Config.MaxRetries {
		if err := r.commit(ctx, store.Change{Answers: []store.PhaseAnswer{ans}}, nil); err != nil {
			return err
		}
		return r.fail(ctx, fmt.Sprintf("the %s answer is still missing or invalid after %d re-prompts: %s",
			r.main.Asked, r.main.Reprompts, failure.Message))
	}
	text := r.reprompt(failure, r.main.Asked)
	hctx, cancel := r.hostCtx(ctx)
	defer cancel()
	at := r.main.Cursor
	if err := r.e.host.Send(hctx, id, text); err != nil {
		return r.fail(ctx, fmt.Sprintf("send the re-prompt: %v", err))
	}
	asked, n := r.main.Asked, r.main.Reprompts+1
	r.markDirty(id, session.NoticeMessage)
	r.main.reset(at)
	r.main.Asked, r.main.Reprompts = asked, n
	return r.commit(ctx, store.Change{Answers: []store.PhaseAnswer{ans}}, nil,
		r.ev(EventReprompted, nil, fmt.Sprintf("asked again for the %s answer (%d of %d): %s", asked, n, r.tmpl.Config.MaxRetries, failure.Message)))
}

func (r *runner) checkPhaseTimeout(ctx context.Context) error {
	var secs int
	switch r.main.Asked {
	case protocol.PhaseAnalysis:
		secs = r.tmpl.Phases.Analysis.Timeout
	case protocol.PhaseTaskList:
		secs = r.tmpl.Phases.TaskPlanning.Timeout
	case protocol.PhaseAggregation:
		secs = r.tmpl.Phases.Aggregation.Timeout
	case protocol.PhaseVerification:
		secs = r.tmpl.Phases.Verification.Timeout
	}
	if secs <= 0 || r.main.AskedAt.IsZero() {
		return nil
	}
	if r.e.now().Sub(r.main.AskedAt) <= template.Seconds(secs) {
		return nil
	}
	hctx, cancel := r.hostCtx(ctx)
	if err := r.e.host.Interrupt(hctx, session.ID(r.run.MainSessionID)); err != nil {
		r.log().Debug("interrupt the main session", "err", err)
	}
	cancel()
	return r.fail(ctx, fmt.Sprintf("the %s answer did not come within %d s", r.main.Asked, secs))
}

func answerRecord(resp protocol.Response) store.PhaseAnswer {
	data, _ := json.Marshal(resp.Data)
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
	return a
}

// answer moves the run on with the main session's answer.
func (r *runner) answer(ctx context.Context, resp protocol.Response) error {
	ans := answerRecord(resp)
	ans.Attempt = r.main.Reprompts
	r.main.Asked = ""
	change := store.Change{Answers: []store.PhaseAnswer{ans}}
	switch data := resp.Data.(type) {
	case *protocol.Analysis:
		if err := r.enter(RunPlanning, PhaseTaskPlanning); err != nil {
			return err
		}
		if err := r.commit(ctx, change, nil, r.ev(EventAnalysisComplete, nil, data.Summary), r.ev(EventPhaseChanged, nil, "")); err != nil {
			return err
		}
		return r.ask(ctx, template.PhaseTaskPlanning, protocol.PhaseTaskList)
	case *protocol.TaskList:
		return r.planned(ctx, change, data)
	case *protocol.Aggregation:
		if r.tmpl.Phases.Verification.Enabled {
			if err := r.enter(RunVerifying, PhaseVerification); err != nil {
				return err
			}
			if err := r.commit(ctx, change, nil, r.ev(EventPhaseChanged, nil, data.Summary)); err != nil {
				return err
			}
			return r.ask(ctx, template.PhaseVerification, protocol.PhaseVerification)
		}
		return r.complete(ctx, change, data.Summary)
	case *protocol.Verification:
		return r.verified(ctx, change, data)
	case *protocol.Review:
		return r.reviewed(ctx, change, data)
	default:
		return r.fail(ctx, fmt.Sprintf("unexpected answer of phase %s", resp.Phase))
	}
}

// planned takes the task list: the run waits for its confirmation (or
// confirms it itself with config.autoConfirm).
func (r *runner) planned(ctx context.Context, change store.Change, data *protocol.TaskList) error {
	tasks := tasksFromPlan(r.run.ID, data.Tasks)
	checkErr := CheckTasks(tasks, r.tmpl.Config.MaxTasks)
	tasks = setAsideDuplicates(tasks)
	skillNote := r.hooks.planned(tasks)
	if err := r.move(RunConfirming); err != nil {
		return err
	}
	r.plan.tasks = tasks
	r.plan.workers = map[string]*workerState{}
	r.run.Message = skillNote
	change.Tasks, change.ReplaceTasks = tasks, true
	ready := r.ev(EventTasksReady, nil, "")
	ready.p.Tasks, ready.p.Groups = tasks, ParallelGroups(tasks)
	evs := []event{ready, r.ev(EventPhaseChanged, nil, "")}
	var tle *TaskListError
	if errors.As(checkErr, &tle) {
		r.run.Message = strings.TrimSpace(checkErr.Error() + "\n" + skillNote)
		ev := r.ev(EventTasksInvalid, nil, r.run.Message)
		ev.p.Problems = tle.Problems
		evs = append(evs, ev)
	}
	if err := r.commit(ctx, change, nil, evs...); err != nil {
		return err
	}
	if checkErr == nil && r.tmpl.Config.AutoConfirm {
		if err := r.confirm(ctx, Modifications{}); err != nil {
			if r.ledger.broken() != nil {
				return err
			}
			r.log().Warn("auto-confirm", "err", err)
		}
	}
	return nil
}

func (r *runner) complete(ctx context.Context, change store.Change, summary string) error {
	now := r.e.now()
	r.main.Asked = ""
	// The outcome is read from the final report: completed only when
	// nothing is left open (outcome.go).
	rep := r.buildReport(ctx, &change)
	answers, err := r.e.store.Answers(context.WithoutCancel(ctx), r.run.ID)
	if err != nil {
		r.log().Warn("outcome: read the answers", "err", err)
	}
	status, issues := Outcome(rep, append(answers, change.Answers...))
	if err := r.move(status); err != nil {
		return err
	}
	r.run.CompletedAt = &now
	r.run.Issues = issues
	r.sync()
	msg := summary
	if r.run.TasksFailed+r.run.TasksSkipped > 0 {
		msg = fmt.Sprintf("%d of %d tasks completed, %d failed, %d skipped. %s", r.run.TasksCompleted,
			r.run.TasksTotal, r.run.TasksFailed, r.run.TasksSkipped, summary)
	}
	if note := r.hooks.completed(); note != "" {
		msg += " " + note
	}
	r.run.Message = strings.TrimSpace(msg)
	rep.Status, rep.Message, rep.FinishedAt, rep.Issues = r.run.Status, r.run.Message, r.run.CompletedAt, issues
	r.storeReport(&change, rep)
	return r.commit(ctx, change, nil, r.ev(EventCompleted, nil, r.run.Message))
}

// afterWorkers moves the run to aggregation when every task is done.
func (r *runner) afterWorkers(ctx context.Context) error {
	if (r.status != RunSpawning && r.status != RunRunning) || r.inflight > 0 || !r.plan.allDone() || !r.isoSettled() {
		return nil
	}
	if err := r.flushProgress(ctx); err != nil {
		return err
	}
	if r.tmpl.Phases.Aggregation.Enabled {
		if err := r.enter(RunAggregating, PhaseAggregation); err != nil {
			return err
		}
		if err := r.commit(ctx, store.Change{}, nil, r.ev(EventPhaseChanged, nil, "")); err != nil {
			return err
		}
		return r.ask(ctx, template.PhaseAggregation, protocol.PhaseAggregation)
	}
	if r.tmpl.Phases.Verification.Enabled {
		if err := r.enter(RunVerifying, PhaseVerification); err != nil {
			return err
		}
		if err := r.commit(ctx, store.Change{}, nil, r.ev(EventPhaseChanged, nil, "")); err != nil {
			return err
		}
		return r.ask(ctx, template.PhaseVerification, protocol.PhaseVerification)
	}
	return r.complete(ctx, store.Change{}, "")
}
