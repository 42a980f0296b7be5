package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

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
	updated, err := withAnswers(input, answers)
	if err != nil {
		return err
	}
	return e.RespondPermission(ctx, runID, taskID, session.AllowOnce, updated)
}

// withAnswers returns the AskUserQuestion input with "answers" set; every
// answer must be non-empty.
func withAnswers(input json.RawMessage, answers map[string]string) (json.RawMessage, error) {
	if len(answers) == 0 {
		return nil, fmt.Errorf("type an answer or choose an option first: %w", ErrBadRequest)
	}
	for q, v := range answers {
		if strings.TrimSpace(v) == "" {
			return nil, fmt.Errorf("type an answer to %q or choose an option: %w", q, ErrBadRequest)
		}
	}
	fields := map[string]json.RawMessage{}
	if err := json.Unmarshal(input, &fields); err != nil {
		return nil, fmt.Errorf("the worker's question could not be read; answer it in the session's transcript: %w", ErrBadRequest)
	}
	b, err := json.Marshal(answers)
	if err != nil {
		return nil, fmt.Errorf("encode answers: %w", err)
	}
	fields["answers"] = b
	out, err := json.Marshal(fields)
	if err != nil {
		return nil, fmt.Errorf("encode answers: %w", err)
	}
	return out, nil
}
