package template

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

func TestSubstitute(t *testing.T) {
	t.Parallel()
	values := map[string]any{
		"NAME":    "Ada",
		"YES":     true,
		"NO":      false,
		"INT":     3,
		"FLOAT":   2.5,
		"NUMBER":  json.Number("80"),
		"WHOLE":   float64(80),
		"LIST":    []string{"a", "b", "c"},
		"ANYLIST": []any{"x", 1.5, true},
		"EMPTY":   []string{},
		"OBJ":     map[string]any{"k": "v"},
		"NIL":     nil,
		"BRACES":  "{NAME}",
	}
	tests := []struct{ in, want string }{
		{"Hello {NAME}!", "Hello Ada!"},
		{"{YES}/{NO}", "yes/no"},
		{"{INT} {FLOAT} {NUMBER} {WHOLE}", "3 2.5 80 80"},
		{"{LIST}", "a, b, c"},
		{"{ANYLIST}", "x, 1.5, yes"},
		{"[{EMPTY}]", "[]"},
		{"{OBJ}", `{"k":"v"}`},
		{"<{NIL}>", "<>"},
		{"{UNKNOWN} stays", "{UNKNOWN} stays"},
		{"{name} is not a placeholder", "{name} is not a placeholder"},
		{`{"phase": "analysis"}`, `{"phase": "analysis"}`},
		{"{BRACES}", "{NAME}"}, // substituted once, not recursively
		{"{NAME}{NAME}", "AdaAda"},
		{"", ""},
	}
	for _, tc := range tests {
		if got := Substitute(tc.in, values); got != tc.want {
			t.Errorf("Substitute(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestValues(t *testing.T) {
	t.Parallel()
	tpl := Template{ID: "t", Variables: map[string]Variable{
		"NAME":  {Type: "string", Label: "Name", Required: true},
		"NOTE":  {Type: "text", Label: "Note", Default: "none"},
		"COUNT": {Type: "number", Label: "Count", Default: json.Number("80")},
		"ON":    {Type: "boolean", Label: "On", Default: true},
		"MODE":  {Type: "select", Label: "Mode", Options: []string{"fast", "slow"}, Default: "fast"},
		"TAGS":  {Type: "list", Label: "Tags", Default: []any{"a"}},
	}}
	tests := []struct {
		name    string
		given   map[string]any
		want    map[string]any
		problem string // substring of the problems; "" for success
	}{
		{"defaults", map[string]any{"NAME": "x"}, map[string]any{"NAME": "x", "NOTE": "none", "COUNT": 80.0, "ON": true, "MODE": "fast", "TAGS": []string{"a"}}, ""},
		{"text from a command line", map[string]any{"NAME": "x", "COUNT": "12.5", "ON": "no", "MODE": "slow", "TAGS": "p, q,\nr"}, map[string]any{"NAME": "x", "NOTE": "none", "COUNT": 12.5, "ON": false, "MODE": "slow", "TAGS": []string{"p", "q", "r"}}, ""},
		{"typed values", map[string]any{"NAME": "x", "COUNT": 3, "ON": false, "TAGS": []string{}}, map[string]any{"NAME": "x", "NOTE": "none", "COUNT": 3.0, "ON": false, "MODE": "fast", "TAGS": []string{}}, ""},
		{"missing required", map[string]any{}, nil, "/variables/NAME: Name (NAME) is required"},
		{"blank required", map[string]any{"NAME": "  "}, nil, "is required"},
		{"bad number", map[string]any{"NAME": "x", "COUNT": "many"}, nil, `/variables/COUNT: Count (COUNT): "many" is not a number`},
		{"bad boolean", map[string]any{"NAME": "x", "ON": "maybe"}, nil, `"maybe" is not yes or no`},
		{"bad option", map[string]any{"NAME": "x", "MODE": "medium"}, nil, `"medium" is not one of fast, slow`},
		{"unknown name", map[string]any{"NAME": "x", "COLOUR": "red"}, nil, "/variables/COLOUR: the template has no variable COLOUR"},
		{"wrong type", map[string]any{"NAME": 5}, nil, "text is expected"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := tpl.Values(tc.given)
			if tc.problem == "" {
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(got, tc.want) {
					t.Errorf("Values = %#v, want %#v", got, tc.want)
				}
				return
			}
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("error = %v, want ErrInvalid", err)
			}
			if all := fmt.Sprint(Problems(err)); !strings.Contains(all, tc.problem) {
				t.Errorf("problems %s do not contain %q", all, tc.problem)
			}
		})
	}
}

func TestRender(t *testing.T) {
	t.Parallel()
	tpl := Template{
		Config:    Config{MaxTasks: 7, MaxWorkers: 3},
		Variables: map[string]Variable{"DIR": {Type: "string", Label: "Dir", Default: "docs"}},
		Prompts: Prompts{
			ResponseFormat:  ResponseFormat{StartDelimiter: "<<S>>", EndDelimiter: "<<E>>"},
			WorkerExecution: Prompt{System: "Write into {DIR}.", User: "{START_DELIMITER}\n{TASK_ID} of {MAX_TASKS} by {MAX_WORKERS}\n{END_DELIMITER} {OTHER}"},
		},
	}
	got, err := tpl.Render(PhaseWorkerExecution, map[string]any{"TASK_ID": "task_001", "DIR": "handbook"})
	if err != nil {
		t.Fatal(err)
	}
	want := Prompt{System: "Write into handbook.", User: "<<S>>\ntask_001 of 7 by 3\n<<E>> {OTHER}"}
	if got != want {
		t.Errorf("Render = %#v, want %#v", got, want)
	}
	if _, err := tpl.Render(Phase("nope"), nil); err == nil {
		t.Error("Render of an unknown phase succeeded")
	}
}
