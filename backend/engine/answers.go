package engine

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/baton-app/baton/backend/session"
)

// AnswerQuestion answers the question (AskUserQuestion) the worker of
// taskID waits on: answers maps each question's text to the chosen option
// or the user's own words. The tool call is allowed once with the answers
// added to its input, as Claude Code expects.
func (e *Engine) AnswerQuestion(ctx context.Context, runID, taskID string, answers map[string]string) error {
	snap, err := e.Snapshot(ctx, runID)
	if err != nil {
		return err
	}
	var input json.RawMessage
	for _, w := range snap.Workers {
		if w.TaskID == taskID && w.Waiting != nil {
			input = w.Waiting.Input
		}
	}
	if input == nil {
		return fmt.Errorf("that worker does not wait for an answer any more; refresh the run: %w", ErrIllegalTransition)
	}
	updated, err := session.WithAnswers(input, answers)
	if err != nil {
		return also{err, ErrBadRequest}
	}
	return e.RespondPermission(ctx, runID, taskID, session.AllowOnce, updated)
}
