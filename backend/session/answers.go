package session

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// ErrNoAnswer is an answer to a worker's question (AskUserQuestion) that
// cannot be given: none typed or chosen, or a question that cannot be read.
var ErrNoAnswer = errors.New("bad request")

// WithAnswers returns the AskUserQuestion input with "answers" set, as
// Claude Code expects it: answers maps each question's text to the chosen
// option or the user's own words, and every answer must be non-empty.
func WithAnswers(input json.RawMessage, answers map[string]string) (json.RawMessage, error) {
	if len(answers) == 0 {
		return nil, fmt.Errorf("type an answer or choose an option first: %w", ErrNoAnswer)
	}
	for q, v := range answers {
		if strings.TrimSpace(v) == "" {
			return nil, fmt.Errorf("type an answer to %q or choose an option: %w", q, ErrNoAnswer)
		}
	}
	fields := map[string]json.RawMessage{}
	if err := json.Unmarshal(input, &fields); err != nil {
		return nil, fmt.Errorf("the worker's question could not be read; answer it in the session's transcript: %w", ErrNoAnswer)
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
