package console

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
)

func TestAskUserQuestionInTheTerminal(t *testing.T) {
	t.Parallel()
	input := json.RawMessage(`{"questions": [
		{"question": "Which part first?", "header": "Start", "options": [{"label": "Backend", "description": "Go code"}, {"label": "Frontend"}]},
		{"question": "Which checks?", "multiSelect": true, "options": [{"label": "vet"}, {"label": "lint"}, {"label": "test"}]},
		{"question": "Anything else?"}]}`)
	qs := parseAsk(input)
	if len(qs) != 3 || len(qs[0].Options) != 2 || !qs[1].MultiSelect {
		t.Fatalf("parsed %+v", qs)
	}
	var out bytes.Buffer
	a := &attention{in: newLineReader(strings.NewReader("2\n1,3\nKeep it short\n")), out: &out, asked: map[string]bool{}, ctx: context.Background()}
	answers, ok := a.askUser("task_002", qs)
	if !ok {
		t.Fatalf("not answered:\n%s", out.String())
	}
	want := map[string]string{"Which part first?": "Frontend", "Which checks?": "vet, test", "Anything else?": "Keep it short"}
	for q, v := range want {
		if answers[q] != v {
			t.Errorf("answer to %q = %q, want %q", q, answers[q], v)
		}
	}
	for _, s := range []string{"task_002 asks: Which part first?\n  1. Backend — Go code\n  2. Frontend\n", "Your answer: numbers (1,3) or your own words"} {
		if !strings.Contains(out.String(), s) {
			t.Errorf("output lacks %q:\n%s", s, out.String())
		}
	}
	// Own words, a number out of range, and several numbers where one is asked stay as typed.
	for typed, want := range map[string]string{"Both, really": "Both, really", "7": "7", "1,2": "1,2", " 1 ": "Backend"} {
		if got := choice(qs[0], typed); got != want {
			t.Errorf("choice(%q) = %q, want %q", typed, got, want)
		}
	}
	upd, err := answeredInput(input, answers)
	var back struct {
		Questions []askQuestion     `json:"questions"`
		Answers   map[string]string `json:"answers"`
	}
	if err != nil || json.Unmarshal(upd, &back) != nil || len(back.Questions) != 3 || back.Answers["Which checks?"] != "vet, test" {
		t.Errorf("answered input = %s, %v", upd, err)
	}

	// Enter leaves the question open: nothing is answered, and the user is
	// told where it is found again.
	out.Reset()
	a = &attention{in: newLineReader(strings.NewReader("\n")), out: &out, asked: map[string]bool{}, ctx: context.Background()}
	if _, ok := a.askUser("task_002", qs[:1]); ok || !strings.Contains(out.String(), "asks it again") {
		t.Errorf("Enter answered the question:\n%s", out.String())
	}
}
