package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/baton-app/baton/backend/protocol"
	"github.com/baton-app/baton/backend/store"
	"github.com/baton-app/baton/backend/template"
)

// The review gate of seed 001: with phases.review.enabled a worker's
// completion moves its task to awaiting_review. The reviewer (the main
// session with the review prompt, or the user through Engine.Review)
// approves it (completed) or rejects it with a reason (rejected, then
// pending again with the reason added to the next prompt, at most
// config.maxRetries times; one more rejection fails the task).

// ReviewerUser is the phases.review.reviewer value that leaves the decision
// to the user (Engine.Review); any other value lets the main session decide.
const ReviewerUser = "user"

// Review decides on a task awaiting review: approve completes it; a
// rejection sends it back to its worker with the reason.
func (e *Engine) Review(ctx context.Context, runID, taskID string, approve bool, reason string) error {
	return e.do(ctx, runID, func(ctx context.Context, r *runner) error {
		return r.userReview(ctx, taskID, approve, reason)
	})
}

func (r *runner) userReview(ctx context.Context, taskID string, approve bool, reason string) error {
	ws, err := r.worker(taskID)
	if err != nil {
		return err
	}
	if ws.status != WorkerAwaitingReview {
		return fmt.Errorf("worker %s is %s, not awaiting review: %w", taskID, ws.status, ErrIllegalTransition)
	}
	if !approve && strings.TrimSpace(reason) == "" {
		return fmt.Errorf("a rejection of %s needs a reason for the worker: %w", taskID, ErrBadRequest)
	}
	d := &protocol.Review{TaskID: taskID, Decision: protocol.ReviewApproved, Reason: reason}
	if !approve {
		d.Decision = protocol.ReviewRejected
	}
	return r.decide(ctx, store.Change{}, ws, d, "the user")
}

// awaitReview holds a completed task for the reviewer; with
// requireBuildSuccess a failed build, or one not run, is rejected at once.
func (r *runner) awaitReview(ctx context.Context, ws *workerState, c *protocol.Completion, msg string) error {
	if err := ws.move(WorkerAwaitingReview); err != nil {
		return err
	}
	ws.book.Report, _ = json.Marshal(c)
	r.hooks.awaitingReview(ws.w.TaskID, c)
	if msg == "" {
		msg = "awaiting review"
	}
	if err := r.commit(ctx, store.Change{}, []*workerState{ws}, r.ev(EventWorkerAwaitingReview, ws, msg)); err != nil {
		return err
	}
	if reason := unverifiedBuild(c.Build); r.tmpl.Phases.Review.RequireBuildSuccess && reason != "" {
		return r.decide(ctx, store.Change{}, ws, &protocol.Review{TaskID: ws.w.TaskID, Decision: protocol.ReviewRejected,
			Reason: reason, RequiredChanges: []string{"make the build succeed"}}, "the build check")
	}
	return nil
}

// askReview asks the main session to review the first task awaiting review
// when the main session is free and the orchestrator reviews.
func (r *runner) askReview(ctx context.Context) error {
	if !r.tmpl.Phases.Review.Enabled || r.tmpl.Phases.Review.Reviewer == ReviewerUser {
		return nil
	}
	for _, id := range r.plan.order() {
		ws := r.plan.workers[id]
		if ws.status != WorkerAwaitingReview {
			continue
		}
		r.reviewing = id
		err := r.askWith(ctx, template.PhaseReview, protocol.PhaseReview, r.reviewValues(id, ws))
		if err != nil {
			r.reviewing = ""
		}
		return err
	}
	return nil
}

// reviewed takes the main session's review answer.
func (r *runner) reviewed(ctx context.Context, change store.Change, d *protocol.Review) error {
	id := r.reviewing
	r.reviewing = ""
	if id == "" {
		id = d.TaskID
	}
	ws := r.plan.workers[id]
	if ws == nil || ws.status != WorkerAwaitingReview {
		// Decided meanwhile (by the user): keep the answer, change nothing.
		return r.commit(ctx, change, nil)
	}
	return r.decide(ctx, change, ws, d, "the reviewer")
}

// decide applies a review decision to a task awaiting review.
func (r *runner) decide(ctx context.Context, change store.Change, ws *workerState, d *protocol.Review, who string) error {
	r.hooks.decided(ws.w.TaskID, d)
	if d.Approved() {
		if err := ws.move(WorkerCompleted); err != nil {
			return err
		}
		r.hooks.finished(ws.w.TaskID, true)
		ws.book.Report = nil
		ws.book.Feedback = ""
		ws.w.Error = ""
		msg := "approved by " + who
		if d.Reason != "" {
			msg += ": " + d.Reason
		}
		return r.commit(ctx, change, []*workerState{ws}, r.ev(EventWorkerCompleted, ws, msg))
	}
	reason := strings.TrimSpace(d.Reason)
	if reason == "" {
		reason = "no reason given"
	}
	if err := ws.move(WorkerRejected); err != nil {
		return err
	}
	ws.book.Report = nil
	ws.book.Rejections++
	ws.w.Error = "rejected by " + who + ": " + reason
	ws.book.Feedback = rejection(who, reason, d.RequiredChanges)
	if err := r.commit(ctx, change, []*workerState{ws}, r.ev(EventWorkerRejected, ws, ws.w.Error)); err != nil {
		return err
	}
	if ws.book.Rejections > r.tmpl.Config.MaxRetries {
		return r.finalFail(ctx, ws, fmt.Sprintf("rejected %d times; last reason: %s", ws.book.Rejections, reason))
	}
	return r.requeue(ctx, ws, ws.w.Error, false, true)
}
