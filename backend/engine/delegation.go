package engine

import (
	"context"
	"fmt"
	"strings"

	"github.com/baton-app/baton/backend/protocol"
	"github.com/baton-app/baton/backend/session"
	"github.com/baton-app/baton/backend/store"
)

// The delegation dialect of seed 003: a worker's attempt_completion with
// clarification_needed (status needs_input) waits for the user's answer,
// which Engine.Answer sends back to the worker's session; one with
// conflict_detected (status conflict) ends the task with its conflicts
// recorded, and the aggregation prompt lists them. A worker's TASK_JSON is
// the new_task object that delegates its task.

// Answer sends the user's answer to the questions of a worker that asked
// for clarification; the worker continues in the same session.
func (e *Engine) Answer(ctx context.Context, runID, taskID, text string) error {
	return e.do(ctx, runID, func(ctx context.Context, r *runner) error {
		return r.answerWorker(ctx, taskID, text)
	})
}

// askUser puts a worker in waiting for the answer to its questions.
func (r *runner) askUser(ctx context.Context, ws *workerState, questions []string) error {
	ws.w.Questions = append([]string(nil), questions...)
	ws.w.CurrentAction = "waiting for an answer: " + strings.Join(questions, " ")
	// The report is taken: what the session says next answers anew.
	ws.book.reset(ws.book.Cursor)
	ws.book.Reprompts = 0
	return r.commit(ctx, store.Change{}, []*workerState{ws}, r.ev(EventWorkerQuestion, ws, strings.Join(questions, "\n")))
}

func (r *runner) answerWorker(ctx context.Context, taskID, text string) error {
	ws, err := r.worker(taskID)
	if err != nil {
		return err
	}
	if len(ws.w.Questions) == 0 || ws.status != WorkerRunning {
		return fmt.Errorf("worker %s is %s and has no open question: %w", taskID, ws.status, ErrIllegalTransition)
	}
	if strings.TrimSpace(text) == "" {
		return fmt.Errorf("the answer to %s is empty: %w", taskID, ErrBadRequest)
	}
	msg := answerMessage(text)
	id := session.ID(ws.w.SessionID)
	hctx, cancel := r.hostCtx(ctx)
	defer cancel()
	if err := r.e.host.Send(hctx, id, msg); err != nil {
		return fmt.Errorf("send the answer to %s: %w", taskID, err)
	}
	// Everything read so far was before the answer.
	ws.book.reset(ws.book.Cursor)
	ws.w.Questions = nil
	ws.w.CurrentAction = "answer received"
	now := r.e.now()
	ws.activity = now
	ws.w.LastActivityAt = &now
	r.markDirty(id, session.NoticeMessage)
	return r.commit(ctx, store.Change{}, []*workerState{ws}, r.ev(EventWorkerAnswered, ws, text))
}

// conflicts lists a conflict report's issues as sentences.
func conflicts(c *protocol.Completion) []string {
	var out []string
	for _, is := range c.Issues {
		s := strings.TrimSpace(is.Description)
		if is.Type != "" && is.Type != "conflict" {
			s = is.Type + ": " + s
		}
		if is.SuggestedResolution != "" {
			s += " (suggested: " + is.SuggestedResolution + ")"
		}
		out = append(out, s)
	}
	if len(out) == 0 {
		reason := c.Error
		if reason == "" {
			reason = c.Summary
		}
		if reason == "" {
			reason = "a conflict without description"
		}
		out = append(out, reason)
	}
	return out
}
