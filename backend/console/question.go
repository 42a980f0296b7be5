package console

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// An AskUserQuestion call answered in the terminal: each question is shown
// with its options numbered; the user picks by number (several, comma
// separated, where the question allows more than one) or types an answer of
// their own. The answers go into the call's input, as Claude Code expects.

type askOption struct {
	Label       string `json:"label"`
	Description string `json:"description"`
}

type askQuestion struct {
	Question    string      `json:"question"`
	Header      string      `json:"header"`
	Options     []askOption `json:"options"`
	MultiSelect bool        `json:"multiSelect"`
}

// parseAsk reads the questions of an AskUserQuestion input, which has
// either a "question" or a list of "questions".
func parseAsk(input json.RawMessage) []askQuestion {
	var in struct {
		askQuestion
		Questions []askQuestion `json:"questions"`
	}
	if json.Unmarshal(input, &in) != nil {
		return nil
	}
	var out []askQuestion
	if strings.TrimSpace(in.Question) != "" {
		out = append(out, in.askQuestion)
	}
	for _, q := range in.Questions {
		if strings.TrimSpace(q.Question) != "" {
			out = append(out, q)
		}
	}
	return out
}

// choice turns what the user typed into the answer: an option's number (or
// numbers, for a question that allows several) is its label; anything else
// is the user's own words.
func choice(q askQuestion, typed string) string {
	typed = strings.TrimSpace(typed)
	if len(q.Options) == 0 {
		return typed
	}
	parts := strings.Split(typed, ",")
	if len(parts) > 1 && !q.MultiSelect {
		return typed
	}
	var labels []string
	for _, p := range parts {
		n, err := strconv.Atoi(strings.TrimSpace(p))
		if err != nil || n < 1 || n > len(q.Options) {
			return typed
		}
		labels = append(labels, q.Options[n-1].Label)
	}
	return strings.Join(labels, ", ")
}

// answeredInput is the AskUserQuestion input with its "answers" set.
func answeredInput(input json.RawMessage, answers map[string]string) (json.RawMessage, error) {
	fields := map[string]json.RawMessage{}
	if err := json.Unmarshal(input, &fields); err != nil {
		return nil, errors.New("the question could not be read")
	}
	b, err := json.Marshal(answers)
	if err != nil {
		return nil, err
	}
	fields["answers"] = b
	return json.Marshal(fields)
}

// askUser asks who's questions in the terminal. It returns the answers, or
// false when one was left open (Enter) or there is no input: nothing is
// sent then, and the question stays open (asked again on --resume).
func (a *attention) askUser(who string, qs []askQuestion) (map[string]string, bool) {
	answers := map[string]string{}
	for _, q := range qs {
		fmt.Fprintf(a.out, "\n%s asks: %s\n", who, line(q.Question))
		for i, o := range q.Options {
			fmt.Fprintf(a.out, "  %d. %s", i+1, line(o.Label))
			if o.Description != "" {
				fmt.Fprintf(a.out, " — %s", line(o.Description))
			}
			fmt.Fprintln(a.out)
		}
		prompt := "Your answer (Enter leaves the question open): "
		switch {
		case len(q.Options) > 0 && q.MultiSelect:
			prompt = "Your answer: numbers (1,3) or your own words (Enter leaves the question open): "
		case len(q.Options) > 0:
			prompt = "Your answer: a number or your own words (Enter leaves the question open): "
		}
		typed, ok := a.read(prompt)
		if !ok {
			if !a.eof && a.ctx.Err() == nil {
				fmt.Fprintln(a.out, "Left open: \"baton show\" lists it and \"baton run --resume\" asks it again.")
			}
			return nil, false
		}
		answers[q.Question] = choice(q, typed)
	}
	return answers, len(answers) > 0
}
