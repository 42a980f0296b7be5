package session

import (
	"encoding/json"
	"errors"
	"testing"
)

func TestWithAnswers(t *testing.T) {
	t.Parallel()
	input := json.RawMessage(`{"questions":[{"question":"Which part?","options":[{"label":"Backend"}]}]}`)
	tests := []struct {
		name    string
		input   json.RawMessage
		answers map[string]string
		want    string
		ok      bool
	}{
		{"adds the answers and keeps the questions", input, map[string]string{"Which part?": "Backend"},
			`{"answers":{"Which part?":"Backend"},"questions":[{"question":"Which part?","options":[{"label":"Backend"}]}]}`, true},
		{"no answer", input, nil, "", false},
		{"an empty answer", input, map[string]string{"Which part?": "  "}, "", false},
		{"input that is not an object", json.RawMessage(`[1]`), map[string]string{"q": "a"}, "", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := WithAnswers(tc.input, tc.answers)
			if tc.ok != (err == nil) || (err != nil && !errors.Is(err, ErrNoAnswer)) {
				t.Fatalf("WithAnswers error = %v, want ok=%v", err, tc.ok)
			}
			if tc.ok && string(got) != tc.want {
				t.Fatalf("WithAnswers = %s, want %s", got, tc.want)
			}
		})
	}
}
