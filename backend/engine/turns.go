package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/baton-app/baton/backend/isolation"
	"github.com/baton-app/baton/backend/prompts"
	"github.com/baton-app/baton/backend/protocol"
	"github.com/baton-app/baton/backend/session"
	"github.com/baton-app/baton/backend/transcript"
)

// A worker's turn as the runner reads it: progress, a completion report
// (taken by the seeds' rules and the review gate), a permission request, a
// limit, or a turn that ended without a report (re-prompt, keyword
// fallback, failure and retry).

// checkWorker reads a running worker's new entries: progress, a completion
// report, a permission request, or a turn that ended without a report.
func (r *runner) checkWorker(ctx context.Context, ws *workerState, kind session.NoticeKind) error {
	id := session.ID(ws.w.SessionID)
	d, err := r.follow.Absorb(ctx, id, &ws.book.Cursor)
	if err != nil {
		r.log.Warn("read worker session", "task", ws.w.TaskID, "err", err)
		if ws.book.Failures() >= 5 {
			return r.workerFailed(ctx, ws, fmt.Sprintf("the worker session cannot be read: %v", err), true)
		}
		return nil
	}
	now := r.e.now()
	ws.took(d, r.prompts.Folder(ws.w.TaskID), now)
	if c := byMode(r.gate, r.run.MainSessionID, r.tmpl.Config.PermissionMode, ws, d, now); len(c.Decisions) > 0 {
		if err := r.apply(ctx, c); err != nil {
			return err
		}
	}
	if c, changed := ws.retrying(); changed {
		if err := r.apply(ctx, c); err != nil {
			return err
		}
	}
	var res protocol.Result
	if d.Text {
		res = r.parser.ParseEntries(ws.book.Entries(), protocol.Options{Phase: protocol.PhaseCompletion})
		if pr, ok := res.Last(protocol.PhaseProgress); ok {
			if p, ok := pr.Data.(*protocol.Progress); ok {
				if p.ProgressPercent != nil {
					ws.w.Progress = *p.ProgressPercent
				}
				if p.CurrentAction != "" {
					ws.w.CurrentAction = p.CurrentAction
				}
				ws.dirty = true
			}
		}
		if c, ok := completion(res); ok {
			return r.report(ctx, ws, c, false)
		}
	}
	if kind == session.NoticeMessage && !d.Result && !d.Text {
		// Only tool calls came: the turn goes on, and a permission request
		// would come with its own notice (or the next poll).
		return nil
	}
	info, over := r.follow.TurnOver(ctx, id, &ws.book.Cursor)
	left, byRule := r.byRules(ctx, ws, r.prompts.Folder(ws.w.TaskID), info.Pending)
	if len(byRule.Decisions) > 0 {
		if err := r.apply(ctx, byRule); err != nil {
			return err
		}
	}
	info.Pending = left
	if c, changed := ws.permission(info, r.e.now()); changed {
		if ws.w.Waiting != nil {
			r.gate.Describe(session.ID(ws.w.SessionID), ws.w.Waiting, r.prompts.Folder(ws.w.TaskID))
		}
		if err := r.apply(ctx, c); err != nil {
			return err
		}
	}
	if !over || !ws.book.Replied() {
		return nil
	}
	if !d.Text {
		res = r.parser.ParseEntries(ws.book.Entries(), protocol.Options{Phase: protocol.PhaseCompletion})
		if c, ok := completion(res); ok {
			return r.report(ctx, ws, c, false)
		}
	}
	if l := ws.book.Limit(); l != nil {
		return r.apply(ctx, limitHit(&r.limits, r.main, ws, *l, r.e.now(), r.e.jitter(), r.tmpl.Config.MaxWorkers, r.log)) // a wait, not a failure: no retry used
	}
	if r.limits.Budget.Paused {
		// The budget is used up: the worker's turn ended, and it waits.
		return r.apply(ctx, ws.budgetWait(r.e.now()))
	}
	// The model could not be reached (not a bad reply): the session goes
	// on once the model is back, no retry spent. Stopped in the middle (a
	// restart, a process that died): it goes on where it was, told what it
	// did already, counted against the re-prompts. While the model is
	// still away it waits (the next read after the link is back sends it).
	if out := ws.book.Outage() != nil; out || ws.book.Cut() && ws.book.Reprompts < r.tmpl.Config.MaxRetries {
		why := prompts.ModelBack
		if !out {
			why = prompts.StoppedMidTurn
		}
		if r.e.hostDown() {
			return nil
		}
		if away, _ := r.places.Away(ws.w.TaskID, time.Now(), r.e.reconnectBound()); away != isolation.Here {
			return r.workerFailed(ctx, ws, "its machine cannot be reached", true)
		}
		return r.tell(ctx, ws, prompts.GoOn(why, ws.book.Done, true), "message to go on", func() change { return ws.wentOn(why, r.e.now(), !out) })
	}
	if why := ws.book.Failed(); why != "" {
		// The CLI's own sentence (it refused to run, the API refused the
		// request), not a reply without a report.
		return r.workerFailed(ctx, ws, "the session ended with an error: "+why, false)
	}
	failure := protocol.Failure{Kind: protocol.FailureNoBlock, Phase: protocol.PhaseCompletion, Message: "no completion block"}
	if res.Failure != nil {
		failure = *res.Failure
	}
	failure.TaskID = ws.w.TaskID
	if ws.book.Reprompts < r.tmpl.Config.MaxRetries {
		return r.tell(ctx, ws, r.prompts.Reprompt(failure, protocol.PhaseCompletion), "re-prompt", func() change { return ws.reprompted(now, r.tmpl.Config.MaxRetries, failure.Message) })
	}
	text := transcript.AssistantText(ws.book.Entries())
	if fb := protocol.KeywordFallback(text); fb.Detected && fb.ProbablePhase == string(protocol.PhaseCompletion) {
		summary := lastRunes(strings.TrimSpace(text), 2000)
		return r.report(ctx, ws, &protocol.Completion{TaskID: ws.w.TaskID, Status: "success", Summary: summary}, true)
	}
	return r.workerFailed(ctx, ws, fmt.Sprintf("no valid completion report after %d re-prompts: %s", ws.book.Reprompts, failure.Message), false)
}

// tell sends worker ws (nil: the main session) text in its session (what:
// what the text is, for a failure to send it) and applies the change then
// makes of it.
func (r *runner) tell(ctx context.Context, ws *workerState, text, what string, then func() change) error {
	id := session.ID(r.run.MainSessionID)
	if ws != nil {
		id = session.ID(ws.w.SessionID)
	}
	if err := r.e.host.Send(ctx, id, text); err != nil {
		if ws == nil {
			return r.fail(ctx, fmt.Sprintf("send the %s: %v", what, err))
		}
		return r.workerFailed(ctx, ws, fmt.Sprintf("send the %s: %v", what, err), true)
	}
	r.follow.Mark(id, session.NoticeMessage)
	return r.apply(ctx, then())
}

// foreignReport refuses a report about another task than own: a worker's
// report counts only for the task it was given (nil when about is own).
func foreignReport(own, about string) error {
	if about == "" || about == own {
		return nil
	}
	return &foreignReportError{own: own, about: about}
}

// foreignReportError is a worker's report about another task than its own.
type foreignReportError struct{ own, about string }

func (e *foreignReportError) Error() string {
	return fmt.Sprintf("it is about task %s, but your task is %s; Baton takes a report only for the task it gave you, so do task %s if you have not, then report it with its own id %q",
		e.about, e.own, e.own, e.own)
}

// completion is the last completion report of a parse.
func completion(res protocol.Result) (*protocol.Completion, bool) {
	if cr, ok := res.Last(protocol.PhaseCompletion); ok {
		if c, ok := cr.Data.(*protocol.Completion); ok {
			return c, true
		}
	}
	return nil, false
}

// report takes a worker's completion report (unstructured: guessed from
// its words).
func (r *runner) report(ctx context.Context, ws *workerState, c *protocol.Completion, unstructured bool) error {
	err := foreignReport(ws.w.TaskID, c.TaskID)
	if err == nil {
		err = r.flows.CheckReport(ws.w.TaskID, c)
	}
	if err != nil {
		// A report about another task, or one the workflows' rules
		// refuse: the worker is asked for a corrected one, within the
		// re-prompt budget; past it the task fails.
		why := "the completion report cannot be used: " + err.Error()
		if ws.status != WorkerRunning || ws.w.SessionID == "" || ws.book.Reprompts >= r.tmpl.Config.MaxRetries {
			return r.workerFailed(ctx, ws, why, false)
		}
		ws.w.Error = why
		kind := protocol.FailureInvalidData
		var fe *foreignReportError
		if errors.As(err, &fe) {
			kind = protocol.FailureWrongTask
		}
		text := r.prompts.Reprompt(protocol.Failure{Kind: kind, Phase: protocol.PhaseCompletion, Message: err.Error(), TaskID: ws.w.TaskID}, protocol.PhaseCompletion)
		return r.tell(ctx, ws, text, "re-prompt", func() change { return ws.reprompted(r.e.now(), r.tmpl.Config.MaxRetries, why) })
	}
	var art []string
	for _, a := range c.Artifacts {
		art = append(art, a.Path)
	}
	ws.w.OutputFiles = transcript.RelFiles(r.prompts.Folder(ws.w.TaskID), c.OutputFiles, c.FilesCreated, c.FilesModified, art, ws.book.ToolFiles)
	ws.w.Summary = c.Summary
	ws.w.Output = c.Output
	ws.w.Unstructured = unstructured
	switch c.Status {
	case "needs_input":
		if len(c.Questions) > 0 {
			return r.apply(ctx, ws.asks(c.Questions))
		}
		return r.workerFailed(ctx, ws, "the worker needs input but asked no question", false)
	case "conflict":
		r.limits.Success(r.tmpl.Config.MaxWorkers)
		r.archive.Add(ws.w.SessionID)
		if ctx.Err() != nil {
			return nil
		}
		ch, err := r.review.conflicted(ws, c, &r.plan, r.e.now())
		return errors.Join(err, r.apply(ctx, ch))
	case "success", "partial", "awaiting_review":
		if c.Status != "partial" {
			// What it declares must be written; what it changed, in its
			// scope (outputs.go).
			if text := r.outputsKept(ctx, ws, c); text != "" {
				return r.tell(ctx, ws, text, "re-prompt", func() change {
					return ws.reprompted(r.e.now(), r.tmpl.Config.MaxRetries, "its declared outputs are not written")
				})
			}
			if len(ws.w.OutOfScope) > 0 && r.tmpl.Config.StrictScope {
				return r.workerFailed(ctx, ws, outsideScope(ws.w.OutOfScope), false)
			}
		}
		r.limits.Success(r.tmpl.Config.MaxWorkers)
		if c.Status == "partial" {
			if why := r.review.partial(ws, c); why != "" {
				r.archive.Stop(ctx, ws.live(), ws.w.TaskID)
				if ctx.Err() != nil {
					return nil
				}
				ch, err := r.plan.requeue(ws, why, false, true)
				return errors.Join(err, r.apply(ctx, ch))
			}
		}
		now := r.e.now()
		ws.w.Progress = 100
		ws.w.CompletedAt = &now
		ws.w.Waiting = nil
		ws.w.Error = ""
		if c.Status == "partial" {
			ws.w.Error = "partly done: " + c.Error
		}
		ws.w.Questions = nil
		ws.w.Conflicts = nil
		msg := ""
		if unstructured {
			msg = "completed without a structured report (guessed from its words)"
		}
		r.archive.Add(ws.w.SessionID)
		if r.review.gated() {
			ch, err := r.review.await(ws, c, msg, &r.plan, now)
			if err != nil {
				return err
			}
			return r.apply(ctx, ch)
		}
		if err := ws.move(WorkerCompleted); err != nil {
			return err
		}
		return r.apply(ctx, ws.event(EventWorkerCompleted, msg).finished(ws.w.TaskID, true, c.Notes()...))
	default:
		reason := c.Error
		if reason == "" {
			reason = "the worker reported status " + c.Status
		}
		if len(c.Questions) > 0 {
			reason += " (questions: " + strings.Join(c.Questions, "; ") + ")"
		}
		// A reported failure is retried in a new session within maxRetries
		// unless the template says retryFailedReports: false.
		return r.workerFailed(ctx, ws, reason, r.tmpl.Config.RetryFailedReports())
	}
}

// workerFailed stops the worker's session and retries it automatically when
// retry is true and the cap allows, else fails it for good.
func (r *runner) workerFailed(ctx context.Context, ws *workerState, reason string, retry bool) error {
	if ctx.Err() != nil {
		return nil // stopping: nothing failed; Restore takes it up from the store
	}
	if r.e.hostDown() {
		// The host is lost, not the worker: it is read again when the
		// host is back (or the run stops as interrupted).
		return session.LostError(reason)
	}
	away := isolation.Here
	if ws.status == WorkerRunning {
		// Its machine cannot be reached: it waits for it as a run waits
		// for a lost host, then starts again elsewhere (no retry spent).
		var msg string
		if away, msg = r.places.Away(ws.w.TaskID, time.Now(), r.e.reconnectBound()); away == isolation.Wait {
			ws.activity = r.e.now()
			if ws.w.CurrentAction == msg {
				return nil
			}
			ws.w.CurrentAction = msg
			return r.apply(ctx, ws.event(EventWorkerProgress, msg))
		} else if away == isolation.Elsewhere {
			reason = msg
			r.places.Leave(ws.w.TaskID)
		}
	}
	r.archive.Stop(ctx, ws.live(), ws.w.TaskID)
	var c change
	var err error
	if away == isolation.Elsewhere && !r.status.Held() {
		c, err = r.plan.requeue(ws, reason, false, true)
	} else if retry && ws.book.AutoRetries < r.tmpl.Config.MaxRetries && !r.status.Held() {
		c, err = r.plan.requeue(ws, reason, true, true)
	} else {
		c, err = r.plan.fail(ws, reason, r.e.now())
	}
	if err != nil {
		return err
	}
	return r.apply(ctx, c)
}
