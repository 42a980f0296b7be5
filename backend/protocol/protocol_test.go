package protocol

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
)

const (
	okBlock  = "<<<ORCHESTRATOR_RESPONSE>>>\n{\"phase\":\"completion\",\"data\":{\"task_id\":\"task_001\",\"status\":\"success\"}}\n<<<END_ORCHESTRATOR_RESPONSE>>>"
	badBlock = "<<<ORCHESTRATOR_RESPONSE>>>\n{\"phase\":\"completion\",\"data\":{\"task_id\":\"task_001\",\"status\":\"failed\",\"error\":\"trap\"}}\n<<<END_ORCHESTRATOR_RESPONSE>>>"
)

func TestNewParserDelimiters(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		d       Delimiters
		wantErr bool
	}{
		{"zero means default", Delimiters{}, false},
		{"custom", Delimiters{Start: "[[BEGIN]]", End: "[[END]]"}, false},
		{"empty end", Delimiters{Start: "[[BEGIN]]"}, true},
		{"blank start", Delimiters{Start: "  ", End: "x"}, true},
		{"same", Delimiters{Start: "@@", End: "@@"}, true},
		{"end contains start", Delimiters{Start: "<R>", End: "</<R>>"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p, err := NewParser(tt.d, nil)
			if (err != nil) != tt.wantErr {
				t.Fatalf("NewParser(%+v) error = %v, want error %v", tt.d, err, tt.wantErr)
			}
			if err != nil && !errors.Is(err, ErrBadDelimiters) {
				t.Fatalf("error %v is not ErrBadDelimiters", err)
			}
			if err == nil && tt.d == (Delimiters{}) && p.Delimiters() != DefaultDelimiters() {
				t.Fatalf("zero delimiters gave %+v", p.Delimiters())
			}
		})
	}
}

func TestFindBlocks(t *testing.T) {
	t.Parallel()
	p, err := NewParser(Delimiters{Start: "[[BEGIN]]", End: "[[END]]"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		text string
		want []Block
	}{
		{"none", "no block here", nil},
		{"one", "a[[BEGIN]]{}[[END]]b", []Block{{Start: 1, End: 19, Content: "{}", Complete: true}}},
		{"two", "[[BEGIN]]1[[END]] [[BEGIN]]2[[END]]", []Block{
			{Start: 0, End: 17, Content: "1", Complete: true},
			{Start: 18, End: 35, Content: "2", Complete: true}}},
		{"incomplete at end", "x[[BEGIN]]{\"a\":", []Block{{Start: 1, End: 15, Content: "{\"a\":"}}},
		{"incomplete then complete", "[[BEGIN]]{[[BEGIN]]{}[[END]]", []Block{
			{Start: 0, End: 10, Content: "{"},
			{Start: 10, End: 28, Content: "{}", Complete: true}}},
		{"end without start", "[[END]] text", nil},
		{"default delimiters are not these", okBlock, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := p.FindBlocks(tt.text); !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("FindBlocks(%q) =\n%+v\nwant\n%+v", tt.text, got, tt.want)
			}
		})
	}
}

func TestCustomDelimitersParse(t *testing.T) {
	t.Parallel()
	p, err := NewParser(Delimiters{Start: "<answer>", End: "</answer>"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	res := p.ParseText("ok <answer>{\"phase\":\"progress\",\"data\":{\"task_id\":\"t\",\"status\":\"blocked\"}}</answer> then "+okBlock, Options{Phase: PhaseProgress})
	if len(res.Responses) != 1 || !res.Responses[0].Valid() || res.Failure != nil {
		t.Fatalf("custom delimiters: %+v", res)
	}
	if res.Responses[0].BeforeText != "ok" || !strings.HasPrefix(res.Responses[0].AfterText, "then <<<") {
		t.Fatalf("before %q after %q", res.Responses[0].BeforeText, res.Responses[0].AfterText)
	}
	if rp := p.BuildReprompt(Failure{Kind: FailureNoBlock}, PhaseProgress); !strings.Contains(rp, "<answer>\n{") || !strings.Contains(rp, "</answer>") {
		t.Fatalf("re-prompt does not use the custom delimiters:\n%s", rp)
	}
}

func entry(typ, uuid, msgID string, blocks ...ContentBlock) Entry {
	role := typ
	return Entry{Type: typ, UUID: uuid, Message: &Message{ID: msgID, Role: role, Content: blocks}}
}

func textBlock(s string) ContentBlock { return ContentBlock{Type: "text", Text: s} }

// TestOnlyAssistantTextCounts proves that the prompt echo, tool inputs,
// tool results, thinking, result entries and sidechains are never answers.
func TestOnlyAssistantTextCounts(t *testing.T) {
	t.Parallel()
	p := newTestParser(t)
	input, _ := json.Marshal(map[string]string{"content": badBlock})
	tests := []struct {
		name    string
		entries []Entry
		want    int // valid answers expected (each would be okBlock)
	}{
		{"prompt echo in a user entry", []Entry{entry("user", "u1", "", textBlock("Answer like:\n"+badBlock))}, 0},
		{"prompt echo as string content", []Entry{{Type: "user", Message: &Message{Role: "user", Content: Content{textBlock(badBlock)}}}}, 0},
		{"tool_use input", []Entry{entry("assistant", "a1", "m1", ContentBlock{Type: "tool_use", ID: "t1", Name: "Write", Input: input})}, 0},
		{"tool_result content", []Entry{entry("user", "u2", "", ContentBlock{Type: "tool_result", ToolUseID: "t1", Content: json.RawMessage(mustJSON(badBlock))})}, 0},
		{"thinking", []Entry{entry("assistant", "a1", "m1", ContentBlock{Type: "thinking", Thinking: badBlock})}, 0},
		{"result entry", []Entry{{Type: "result", Subtype: "success", Result: badBlock}}, 0},
		{"sidechain", []Entry{{Type: "assistant", IsSidechain: true, Message: &Message{ID: "s", Role: "assistant", Content: Content{textBlock(badBlock)}}}}, 0},
		{"assistant text", []Entry{entry("user", "u1", "", textBlock(badBlock)), entry("assistant", "a1", "m1", textBlock(okBlock))}, 1},
		{"role-only assistant entry", []Entry{{Message: &Message{ID: "m", Role: "assistant", Content: Content{textBlock(okBlock)}}}}, 1},
		{"user type wins over assistant role", []Entry{{Type: "user", Message: &Message{Role: "assistant", Content: Content{textBlock(badBlock)}}}}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			res := p.ParseEntries(tt.entries, Options{Phase: PhaseCompletion})
			if got := len(res.Responses); got != tt.want {
				t.Fatalf("found %d responses, want %d: %+v", got, tt.want, res.Responses)
			}
			for _, r := range res.Responses {
				if c, _ := r.Data.(*Completion); c == nil || c.Status != "success" {
					t.Fatalf("a trap block was read: %+v", r.Data)
				}
			}
		})
	}
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// TestSplitReply splits a block at every byte over two entries of one
// message, and over two messages (where it must not be joined).
func TestSplitReply(t *testing.T) {
	t.Parallel()
	p := newTestParser(t)
	text := "Done.\n" + okBlock + "\nBye."
	for i := 1; i < len(text); i++ {
		same := []Entry{
			entry("assistant", "a1", "m1", textBlock(text[:i])),
			entry("assistant", "a2", "m1", ContentBlock{Type: "thinking", Thinking: "hmm"}),
			entry("assistant", "a3", "m1", textBlock(text[i:])),
		}
		// A thinking block between the two halves still separates them
		// with a newline only, which may split a delimiter; check the
		// direct split first.
		direct := []Entry{same[0], same[2]}
		res := p.ParseEntries(direct, Options{Phase: PhaseCompletion})
		if res.Failure != nil || len(res.Responses) != 1 {
			t.Fatalf("split at %d: %+v", i, res)
		}
		if got := res.Responses[0].Source.Entries; !reflect.DeepEqual(got, []string{"a1", "a3"}) {
			t.Fatalf("split at %d: entries %v", i, got)
		}
		if i <= strings.Index(text, "<<<") || i >= len(text)-len("\nBye.") {
			continue // the split is outside the block
		}
		other := []Entry{same[0], entry("assistant", "a3", "m2", textBlock(text[i:]))}
		res = p.ParseEntries(other, Options{Phase: PhaseCompletion})
		for _, r := range res.Responses {
			if r.Valid() && r.Delimited {
				t.Fatalf("split at %d over two messages was joined: %+v", i, res.Responses)
			}
		}
	}
}

func TestDecodeTranscript(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		data        string
		wantEntries int
		wantSkipped int
		wantErr     error
	}{
		{"array", `[{"type":"user","message":{"role":"user","content":"hi"}},{"type":"assistant","message":{"id":"m","role":"assistant","content":[{"type":"text","text":"yo"}]}}]`, 2, 0, nil},
		{"jsonl", "{\"type\":\"user\",\"message\":{\"content\":\"hi\"}}\n\n{\"type\":\"result\",\"result\":\"x\"}\n", 2, 0, nil},
		{"odd items", `[1, "s", null, {"a":1}, {"type":"assistant","is_error":"yes","message":{"content":[5]}}]`, 1, 4, nil},
		{"bom", "\ufeff[{\"type\":\"user\"}]", 1, 0, nil},
		{"empty", "  ", 0, 0, ErrEmptyInput},
		{"broken array", `[{"type":"user",`, 0, 0, ErrBadTranscript},
		{"broken jsonl", "{\"type\":\"user\"}\n{oops", 0, 0, ErrBadTranscript},
		{"text", "hello", 0, 0, ErrNotTranscript},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			entries, skipped, err := DecodeTranscript([]byte(tt.data))
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("error %v, want %v", err, tt.wantErr)
			}
			if len(entries) != tt.wantEntries || skipped != tt.wantSkipped {
				t.Fatalf("got %d entries, %d skipped; want %d, %d", len(entries), skipped, tt.wantEntries, tt.wantSkipped)
			}
		})
	}
}

func TestContentShapes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		json string
		want Content
	}{
		{"string", `"hello"`, Content{{Type: "text", Text: "hello"}}},
		{"null", `null`, nil},
		{"number", `7`, nil},
		{"blocks", `[{"type":"text","text":"a"},{"type":"tool_use","id":"t","name":"Read","input":{"p":1}}]`,
			Content{{Type: "text", Text: "a"}, {Type: "tool_use", ID: "t", Name: "Read", Input: json.RawMessage(`{"p":1}`)}}},
		{"odd blocks", `[3, {"type":"text","text":["x"]}, {"type":"text","text":"ok"}]`,
			Content{{Type: "text"}, {Type: "text", Text: "ok"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var c Content
			if err := json.Unmarshal([]byte(tt.json), &c); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(c, tt.want) {
				t.Fatalf("got %#v\nwant %#v", c, tt.want)
			}
		})
	}
}

func TestRepairSteps(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		step  func(string) (string, int)
		in    string
		want  string
		count int
	}{
		{"bom", StripBOM, "\uFEFF{\"a\":1}", `{"a":1}`, 1},
		{"no bom", StripBOM, `{"a":1}`, `{"a":1}`, 0},
		{"fence json", StripCodeFence, "```json\n{\"a\":1}\n```", `{"a":1}`, 1},
		{"fence plain with text after", StripCodeFence, "```\n[1]\n```\nthanks", `[1]`, 1},
		{"fence of code", StripCodeFence, "```go\nx := 1\n```", "```go\nx := 1\n```", 0},
		{"smart quotes", FixSmartQuotes, `{“a”: “say “hi” now”}`, `{"a": "say “hi” now"}`, 2},
		{"smart quotes inside a string stay", FixSmartQuotes, `{"a": "“x”"}`, `{"a": "“x”"}`, 0},
		{"smart single", FixSmartQuotes, `{‘a’: ‘b "c"’}`, `{"a": "b \"c\""}`, 2},
		{"single quotes", FixSingleQuotes, `{'a': 'it\'s "x"'}`, `{"a": "it's \"x\""}`, 2},
		{"apostrophe in a string stays", FixSingleQuotes, `{"a": "it's"}`, `{"a": "it's"}`, 0},
		{"comments", StripComments, "{\"a\": 1, // one\n/* two */ \"b\": \"http://x/*y*/\"}", "{\"a\": 1, \n  \"b\": \"http://x/*y*/\"}", 2},
		{"unclosed block comment", StripComments, "{\"a\": 1} /* tail", "{\"a\": 1} ", 1},
		{"unquoted keys", QuoteKeys, "{a: 1, b_c: {$d-e: true}, f: [g]}", `{"a": 1, "b_c": {"$d-e": true}, "f": [g]}`, 4},
		{"keys after comments", QuoteKeys, "{ /* c */ a: 1}", "{ /* c */ \"a\": 1}", 1},
		{"literal values untouched", QuoteKeys, "[true, null, {\"x\": false}]", "[true, null, {\"x\": false}]", 0},
		{"trailing commas", RemoveTrailingCommas, `{"a": [1, 2,], "b": 3,}`, `{"a": [1, 2], "b": 3}`, 2},
		{"comma runs", RemoveTrailingCommas, `[1,,]`, `[1]`, 2},
		{"comma before a comment then closer", RemoveTrailingCommas, "[1, // c\n]", "[1 // c\n]", 1},
		{"comma in a string stays", RemoveTrailingCommas, `{"a": ",]"}`, `{"a": ",]"}`, 0},
		{"raw newlines", EscapeRawNewlines, "{\"a\": \"x\r\ny\tz\"}", `{"a": "x\ny\tz"}`, 2},
		{"control char", EscapeRawNewlines, "{\"a\": \"\x01\"}", `{"a": "\u0001"}`, 1},
		{"newline outside strings stays", EscapeRawNewlines, "{\n\"a\": 1\n}", "{\n\"a\": 1\n}", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, n := tt.step(tt.in)
			if got != tt.want || n != tt.count {
				t.Fatalf("got %q (%d), want %q (%d)", got, n, tt.want, tt.count)
			}
		})
	}
}

func TestRepairJSONReportsEveryFix(t *testing.T) {
	t.Parallel()
	in := "\uFEFF```json\n{phase: 'x', // c\n “data”: {a: [1,], b: \"l1\nl2\"}}\n```"
	r := RepairJSON(in)
	if !json.Valid([]byte(r.Text)) {
		t.Fatalf("not repaired: %q", r.Text)
	}
	var kinds []RepairKind
	for _, a := range r.Applied {
		kinds = append(kinds, a.Kind)
	}
	if !reflect.DeepEqual(kinds, RepairKinds()) {
		t.Fatalf("applied %v, want every kind %v", kinds, RepairKinds())
	}
	if v := RepairJSON(`  {"a": [1, 2]}  `); len(v.Applied) != 0 || v.Text != `{"a": [1, 2]}` {
		t.Fatalf("valid JSON was repaired: %+v", v)
	}
}

func TestValidate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		phase     Phase
		data      string
		wantErrs  []string // paths
		wantWarns []string
	}{
		{"analysis ok", PhaseAnalysis, `{"summary":"s","recommended_splits":2}`, nil, nil},
		{"analysis zero splits", PhaseAnalysis, `{"summary":"s","recommended_splits":0}`, []string{"data.recommended_splits"}, nil},
		{"progress 140", PhaseProgress, `{"task_id":"t","status":"in_progress","progress_percent":140}`, []string{"data.progress_percent"}, nil},
		{"progress unknown status", PhaseProgress, `{"task_id":"t","status":"working"}`, []string{"data.status"}, nil},
		{"completion missing", PhaseCompletion, `{"summary":"x"}`, []string{"data.task_id", "data.status"}, nil},
		{"completion unknown field", PhaseCompletion, `{"task_id":"t","status":"success","extra":1}`, nil, []string{"data.extra"}},
		{"failed without error", PhaseCompletion, `{"task_id":"t","status":"failed"}`, nil, []string{"data.error"}},
		{"task list each task", PhaseTaskList, `{"tasks":[{"id":"a","title":"A","description":"d","priority":0,"x":1},{"id":"b"}]}`,
			[]string{"data.tasks[0].priority", "data.tasks[1].title", "data.tasks[1].description"}, []string{"data.tasks[0].x"}},
		{"groups", PhaseTaskList, `{"tasks":[{"id":"a","title":"A","description":"d"}],"parallelizable_groups":[["a"],[1]]}`, []string{"data.parallelizable_groups[1][0]"}, nil},
		{"aggregation", PhaseAggregation, `{"status":"success","conflicts":[{"type":"dup"}]}`, []string{"data.conflicts[0].description"}, nil},
		{"verification", PhaseVerification, `{"status":"pass","criteria":[{"criterion":"c","passed":1}]}`, []string{"data.criteria[0].passed"}, nil},
		{"review approved", PhaseReview, `{"task_id":"t","decision":"approved","reason":"r","required_changes":[]}`, nil, nil},
		{"review rejected", PhaseReview, `{"task_id":"t","decision":"rejected","reason":"r","required_changes":["a.go: fix"]}`, nil, nil},
		{"review missing", PhaseReview, `{"required_changes":[1]}`, []string{"data.task_id", "data.decision", "data.reason", "data.required_changes[0]"}, nil},
		{"review bad decision", PhaseReview, `{"task_id":"t","decision":"lgtm","reason":"r"}`, []string{"data.decision"}, nil},
		{"review decision not a string", PhaseReview, `{"task_id":"t","decision":true,"reason":"r"}`, []string{"data.decision"}, nil},
		{"review synonym", PhaseReview, `{"task_id":"t","decision":"Approve","reason":"r"}`, nil, []string{"data.decision"}},
		{"review rejected without changes", PhaseReview, `{"task_id":"t","decision":"rejected","reason":"r"}`, nil, []string{"data.required_changes"}},
		{"review approved with changes", PhaseReview, `{"task_id":"t","decision":"approved","reason":"r","required_changes":["x"]}`, nil, []string{"data.required_changes"}},
		{"not an object", PhaseAnalysis, `[1]`, []string{"data"}, nil},
		{"not json", PhaseAnalysis, `{`, []string{"data"}, nil},
		{"unknown phase", Phase("planning"), `{}`, []string{"phase"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			v := Validate(tt.phase, []byte(tt.data))
			if got := paths(v.Errors); !reflect.DeepEqual(got, tt.wantErrs) {
				t.Fatalf("errors %v, want paths %v", v.Errors, tt.wantErrs)
			}
			if got := paths(v.Warnings); !reflect.DeepEqual(got, tt.wantWarns) {
				t.Fatalf("warnings %v, want paths %v", v.Warnings, tt.wantWarns)
			}
			if v.Valid() != (len(tt.wantErrs) == 0) {
				t.Fatalf("Valid() = %v with errors %v", v.Valid(), v.Errors)
			}
		})
	}
}

func paths(is []Issue) []string {
	var out []string
	for _, i := range is {
		out = append(out, i.Path)
	}
	return out
}

func TestSecondDialectMapping(t *testing.T) {
	t.Parallel()
	p := newTestParser(t)
	tests := []struct {
		result, wantStatus string
		check              func(*Completion) bool
	}{
		{"success", "success", func(c *Completion) bool { return c.Error == "" }},
		{"failure", "failed", func(c *Completion) bool { return c.Error == "boom" }},
		{"clarification_needed", "needs_input", func(c *Completion) bool { return reflect.DeepEqual(c.Questions, []string{"boom"}) }},
		{"conflict_detected", "conflict", func(c *Completion) bool { return len(c.Issues) == 1 && c.Issues[0].Type == "clarification_needed" }},
	}
	for _, tt := range tests {
		t.Run(tt.result, func(t *testing.T) {
			t.Parallel()
			text := `{"taskId":"T-1","result":"` + tt.result + `","summary":"sum","issues_encountered":[{"type":"clarification_needed","description":"boom"}]}`
			for _, in := range []string{text, "<<<ORCHESTRATOR_RESPONSE>>>" + text + "<<<END_ORCHESTRATOR_RESPONSE>>>"} {
				res := p.ParseText(in, Options{Phase: PhaseCompletion})
				r, ok := res.Last(PhaseCompletion)
				if !ok {
					t.Fatalf("no completion in %q: %+v", in, res)
				}
				c := r.Data.(*Completion)
				if r.Dialect != DialectAttemptCompletion || c.Status != tt.wantStatus || c.TaskID != "T-1" || !tt.check(c) {
					t.Fatalf("normalized to %+v (dialect %s)", c, r.Dialect)
				}
			}
		})
	}
}

func TestKeywordFallback(t *testing.T) {
	t.Parallel()
	tests := []struct {
		text  string
		phase string
		conf  float64
	}{
		{"Analysis complete. Found 4 modules. Recommending 3 tasks.", "analysis", 1},
		{"The analysis is done.", "analysis", 0.33},
		{"Here is the task list. Created 5 tasks.", "task_list", 0.67},
		{"Task complete.", "completion", 0.5},
		{"Currently analyzing the router. Progress: 30%", "progress", 0.67},
		{"I couldn't open the file; unable to continue.", "error", 1},
		{"Task done, but one error remains.", "completion", 0.5},
		{"Hello there.", "", 0},
	}
	for _, tt := range tests {
		t.Run(tt.text, func(t *testing.T) {
			t.Parallel()
			fb := KeywordFallback(tt.text)
			if fb.ProbablePhase != tt.phase || fb.Confidence != tt.conf || fb.Detected != (tt.phase != "") {
				t.Fatalf("got %+v, want %s %.2f", fb, tt.phase, tt.conf)
			}
		})
	}
}

func TestBuildReprompt(t *testing.T) {
	t.Parallel()
	p := newTestParser(t)
	tests := []struct {
		name  string
		text  string
		phase Phase
		want  []string
	}{
		{"no block", "I am done.", PhaseCompletion, []string{"holds no response block", `"completion" phase`, `"task_id": "task_001"`}},
		{"incomplete", "<<<ORCHESTRATOR_RESPONSE>>>\n{\"phase\":", PhaseAnalysis, []string{"never ends with <<<END_ORCHESTRATOR_RESPONSE>>>", `"recommended_splits"`}},
		{"invalid json", "<<<ORCHESTRATOR_RESPONSE>>>\n{\"phase\": \"progress\",\n \"data\": {\"task_id\" 1}}\n<<<END_ORCHESTRATOR_RESPONSE>>>", PhaseProgress, []string{"line 2, column 21", "»1}}", "in_progress, blocked, retrying"}},
		{"missing fields", "<<<ORCHESTRATOR_RESPONSE>>>{\"phase\":\"task_list\",\"data\":{\"tasks\":[{\"id\":\"a\"}]}}<<<END_ORCHESTRATOR_RESPONSE>>>", PhaseTaskList, []string{`- data.tasks[0].title: required field "title" is missing`, "- data.tasks[0].description"}},
		{"wrong phase", okBlock, PhaseAggregation, []string{`holds a "completion" answer, but this step needs a "aggregation" answer`}},
		{"dialect errors", `{"taskId":"x","result":"maybe","summary":"s"}`, PhaseCompletion, []string{"your attempt_completion object has these errors", "- result: unknown value"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			res := p.ParseText(tt.text, Options{Phase: tt.phase})
			if res.Failure == nil {
				t.Fatalf("no failure for %q", tt.text)
			}
			got := p.BuildReprompt(*res.Failure, "")
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("re-prompt lacks %q:\n%s", w, got)
				}
			}
		})
	}
}

// A template of the delegation dialect is re-prompted with the shape it
// asked for: attempt_completion for a report, new_task for a plan. That shape
// parses back as a valid answer of the phase, with no warning.
func TestBuildDelegationReprompt(t *testing.T) {
	t.Parallel()
	p := newTestParser(t)
	tests := []struct {
		phase   Phase
		text    string
		dialect Dialect
		want    []string
		not     string
	}{
		{PhaseCompletion, "All done, the spec is written.", DialectAttemptCompletion,
			[]string{"holds no response block", "one attempt_completion report", `"result": "success"`, `"clarification_needed"`}, `"phase"`},
		{PhaseTaskList, `{"taskId": "SPEC-001", "objective": 5}`, DialectNewTask,
			[]string{"your new_task object has these errors", "one block per task", `"delegatedToMode": "spec-pseudocode"`}, `"phase"`},
	}
	for _, tt := range tests {
		res := p.ParseText(tt.text, Options{Phase: tt.phase})
		if res.Failure == nil {
			t.Fatalf("no failure for %q", tt.text)
		}
		got := p.BuildDelegationReprompt(*res.Failure, tt.phase)
		for _, w := range tt.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s re-prompt lacks %q:\n%s", tt.phase, w, got)
			}
		}
		if strings.Contains(got, tt.not) {
			t.Errorf("%s re-prompt shows the phase block the template never asked for:\n%s", tt.phase, got)
		}
		// The example between the delimiters is a valid answer.
		i := strings.Index(got, DefaultStart+"\n{")
		j := strings.Index(got, "}\n"+DefaultEnd)
		if i < 0 || j < i {
			t.Fatalf("%s re-prompt shows no block:\n%s", tt.phase, got)
		}
		example := p.ParseText(got[i:j+2+len(DefaultEnd)], Options{Phase: tt.phase})
		if len(example.Responses) != 1 {
			t.Errorf("the %s example holds %d answers, want 1", tt.phase, len(example.Responses))
		}
		r, ok := example.Last(tt.phase)
		if !ok || r.Dialect != tt.dialect || len(r.Warnings) > 0 {
			t.Errorf("the %s example does not read back as a valid %s: %+v", tt.phase, tt.dialect, example)
		}
	}
	// Other phases keep the phase block.
	res := p.ParseText("Looked around.", Options{Phase: PhaseAnalysis})
	if got := p.BuildDelegationReprompt(*res.Failure, PhaseAnalysis); !strings.Contains(got, `"recommended_splits"`) {
		t.Errorf("analysis re-prompt of a delegation template lacks the analysis block:\n%s", got)
	}
}

// TestExampleBlocksAreValid keeps the shapes shown in re-prompts in step
// with validation.
func TestExampleBlocksAreValid(t *testing.T) {
	t.Parallel()
	p := newTestParser(t)
	for _, ph := range Phases() {
		res := p.ParseText(DefaultStart+"\n"+ExampleBlock(ph)+"\n"+DefaultEnd, Options{Phase: ph})
		if res.Failure != nil {
			t.Errorf("the %s example is not valid: %+v %+v", ph, res.Failure, res.Responses)
		}
		if len(res.Responses) == 1 && len(res.Responses[0].Warnings) > 0 {
			t.Errorf("the %s example has warnings: %v", ph, res.Responses[0].Warnings)
		}
	}
}

// TestRepromptsCarryTheTasksOwnID: a re-prompt about one task shows that
// task's id in its example, never another's, in both dialects, and a
// wrong-task failure is told in its own words.
func TestRepromptsCarryTheTasksOwnID(t *testing.T) {
	t.Parallel()
	p := newTestParser(t)
	f := Failure{Kind: FailureNoBlock, Phase: PhaseCompletion, TaskID: "task_007"}
	got := p.BuildReprompt(f, PhaseCompletion)
	if !strings.Contains(got, `"task_id": "task_007"`) || strings.Contains(got, "task_001") || !strings.Contains(got, `Your task's id is "task_007"`) {
		t.Errorf("completion re-prompt:\n%s", got)
	}
	got = p.BuildDelegationReprompt(f, PhaseCompletion)
	if !strings.Contains(got, `"taskId": "task_007"`) || strings.Contains(got, "CODE-001") {
		t.Errorf("attempt_completion re-prompt:\n%s", got)
	}
	res := p.ParseText(DefaultStart+"\n"+exampleBlock(PhaseCompletion, "task_007")+"\n"+DefaultEnd, Options{Phase: PhaseCompletion})
	if c, ok := res.Last(PhaseCompletion); !ok || c.Data.(*Completion).TaskID != "task_007" {
		t.Errorf("the example for task_007 parses as %+v", res)
	}
	wrong := p.BuildReprompt(Failure{Kind: FailureWrongTask, Phase: PhaseReview, TaskID: "task_002", Message: "the review is about task task_009"}, PhaseReview)
	if !strings.Contains(wrong, "the review is about task task_009") || !strings.Contains(wrong, `"task_id": "task_002"`) {
		t.Errorf("wrong-task re-prompt:\n%s", wrong)
	}
	// Without a task, the example keeps its example id.
	if got := p.BuildReprompt(Failure{Kind: FailureNoBlock}, PhaseCompletion); !strings.Contains(got, `"task_id": "task_001"`) {
		t.Errorf("re-prompt without a task:\n%s", got)
	}
}

func TestHugeValues(t *testing.T) {
	t.Parallel()
	p := newTestParser(t)
	merged := strings.Repeat("# Section\nText with \"quotes\" and ünïcode.\n", oneMB/40)
	agg := &Aggregation{Status: "success", MergedOutput: merged}
	block, err := p.Format(agg)
	if err != nil {
		t.Fatal(err)
	}
	res := p.ParseText(block, Options{Phase: PhaseAggregation})
	r, ok := res.Last(PhaseAggregation)
	if !ok || r.Data.(*Aggregation).MergedOutput != merged {
		t.Fatalf("1 MB merged_output did not survive: %+v", res.Failure)
	}
	many := p.ParseText(string(manyBlocks(oneMB)), Options{Phase: PhaseCompletion})
	if many.Failure != nil || len(many.Valid()) != len(many.Responses) || len(many.Responses) < 1000 {
		t.Fatalf("many blocks: %d responses, %d valid, failure %+v", len(many.Responses), len(many.Valid()), many.Failure)
	}
	if last := many.Responses[len(many.Responses)-1]; last.Phase != PhaseCompletion || len(last.BeforeText) > maxContextText+len("…") {
		t.Fatalf("last response %s, before text %d bytes", last.Phase, len(last.BeforeText))
	}
}

// TestTruncatedInputs parses every prefix of some corpus answers: a reply
// cut anywhere must never panic and never yield a valid answer from a
// block whose end delimiter is missing.
func TestTruncatedInputs(t *testing.T) {
	t.Parallel()
	p := newTestParser(t)
	texts := []string{okBlock, "Intro\n" + okBlock + "\n" + badBlock, "```json\n{\"taskId\":\"T\",\"result\":\"success\",\"summary\":\"s\"}\n```"}
	for _, text := range texts {
		for i := 0; i <= len(text); i++ {
			res := p.ParseText(text[:i], Options{})
			for _, r := range res.Responses {
				if r.Delimited && r.Valid() && !strings.Contains(text[:i], DefaultEnd) {
					t.Fatalf("prefix %q gave a valid delimited answer", text[:i])
				}
			}
		}
	}
}

// adversarialInputs are 1 MB inputs built to make a careless parser
// quadratic or deep; parsing each must finish (the test binary's timeout
// is the bound) without panicking.
func adversarialInputs() map[string]string {
	mb := oneMB
	in := func(body string) string { return DefaultStart + "\n" + body + "\n" + DefaultEnd }
	return map[string]string{
		"many starts":          strings.Repeat(DefaultStart, mb/len(DefaultStart)),
		"many starts then end": strings.Repeat(DefaultStart+"x", mb/len(DefaultStart)) + DefaultEnd,
		"comma run":            in("[1" + strings.Repeat(",", mb) + "]"),
		"smart quotes":         in(strings.Repeat("“a ", mb/5)),
		"single quotes":        in(strings.Repeat("'a", mb/2)),
		"open braces":          strings.Repeat("\n{", mb/2),
		"balanced braces":      strings.Repeat("\n{}", mb/3),
		"deep nesting":         in(strings.Repeat("[", mb)),
		"unquoted keys":        in("{" + strings.Repeat("a: 1, ", mb/6) + "}"),
		"comments":             in(strings.Repeat("/**/", mb/4) + "{}"),
		"newlines in string":   in(`{"phase": "progress", "data": {"task_id": "x` + strings.Repeat("\n", mb) + `y", "status": "blocked"}}`),
	}
}

func TestAdversarialInputs(t *testing.T) {
	t.Parallel()
	p := newTestParser(t)
	for name, text := range adversarialInputs() {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			res := p.ParseText(text, Options{Phase: PhaseProgress})
			if _, err := json.Marshal(res); err != nil {
				t.Fatal(err)
			}
			if name == "newlines in string" && res.Failure != nil {
				t.Fatalf("a 1 MB string of raw newlines was not repaired: %+v", res.Failure)
			}
		})
	}
}

// A block that starts with a BOM, a vertical tab and another BOM is
// repaired in one pass: a second repair finds nothing to do.
func TestBOMRepairIsIdempotent(t *testing.T) {
	for _, in := range []string{"\uFEFF\v\uFEFF{\"a\":1}", "\uFEFF\f\uFEFF\u0085\uFEFF{'a':1}", "\v\uFEFF\u00a0\uFEFF[1,]"} {
		out, n := StripBOM(in)
		if again, m := StripBOM(out); m != 0 || again != out {
			t.Errorf("StripBOM(%q) = %q (%d); a second pass made %q (%d)", in, out, n, again, m)
		}
		first := RepairJSON(in)
		second := RepairJSON(first.Text)
		if second.Text != first.Text || len(second.Applied) != 0 {
			t.Errorf("RepairJSON(%q) = %q %v; again %q %v", in, first.Text, first.Applied, second.Text, second.Applied)
		}
	}
}

func TestDecodeTranscriptLeavesOutBookkeepingLines(t *testing.T) {
	t.Parallel()
	data := strings.Join([]string{
		`{"type":"queue-operation","operation":"enqueue","content":"hi"}`,
		`{"type":"attachment","attachment":{"type":"environment"}}`,
		`{"type":"api-request-blob","message":{"role":"assistant","content":[{"type":"text","text":"not said in this conversation"}]}}`,
		`{"type":"user","message":{"role":"user","content":"hi"}}`,
		`{"type":"assistant","message":{"id":"m","role":"assistant","content":[{"type":"text","text":"yo"}]}}`,
		`{"type":"cost-state","totalCostUSD":0.1}`,
	}, "\n")
	entries, skipped, err := DecodeTranscript([]byte(data))
	if err != nil || skipped != 0 {
		t.Fatalf("err %v, skipped %d", err, skipped)
	}
	var types []string
	for _, e := range entries {
		types = append(types, e.Type)
	}
	if strings.Join(types, ",") != "user,assistant" {
		t.Fatalf("entry types = %v, want user,assistant", types)
	}
}
