package claudecodetest_test

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/baton-app/baton/backend/claudecodetest"
)

var redactFlag = flag.Bool("redact", false, "rewrite the committed recordings through Redact (without re-recording)")

// TestRedactRecordings rewrites the committed recordings through Redact,
// the function Save applies, when run with -redact; otherwise it skips.
func TestRedactRecordings(t *testing.T) {
	if !*redactFlag {
		t.Skip("run with -redact to rewrite the committed recordings")
	}
	for _, rec := range claudecodetest.Recordings(t) {
		for name, data := range map[string][]byte{"stream.jsonl": rec.Stream, "transcript.jsonl": rec.Transcript} {
			if len(data) == 0 {
				continue
			}
			if err := os.WriteFile(filepath.Join(claudecodetest.RecordingsDir(), rec.Name, name), claudecodetest.Redact(data), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// Redact replaces only the CLI's text, keeps every key, value type and the
// lines' order, leaves other lines byte for byte and is idempotent.
func TestRedact(t *testing.T) {
	in := strings.Join([]string{
		`{"type":"api-request-shape","shape":{"system":[{"type":"text","text":"You are Claude Code, <x> & y"}],"tools":[{"name":"Bash","description":"Runs.","input_schema":{"type":"object","properties":{"description":{"description":"What it does","type":"string","enum":["a","b"]}},"required":["description"]}}]},"n":1.50,"ok":true,"z":null}`,
		`{"type":"attachment","attachment":{"type":"skill_listing","content":"- skill: does things","skillCount":1,"names":["skill"]},"rendered":[{"content":"<system-reminder>skills</system-reminder>"}],"uuid":"u1"}`,
		`{"type":"attachment","attachment":{"type":"environment","snapshot":{"workingDirectory":"/p"}},"rendered":[{"content":"env"}]}`,
		`{"type":"api-request-blob","hash":"h","message":{"role":"user","content":[{"type":"text","text":"<system-reminder>\nAttribution\n</system-reminder>"},{"type":"text","text":"## The request\nBaton's prompt"}]}}`,
		`{"type":"api-request-blob","hash":"h","message":{"role":"system","content":[{"type":"text","text":"# Environment\n - Primary working directory: /p"}]}}`,
		`{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"You are Claude Code"},{"type":"tool_use","id":"t","name":"Bash","input":{"command":"ls","description":"list"}}],"usage":{"input_tokens":3}}}`,
		`{"type":"user","message":{"role":"user","content":"<system-reminder>x</system-reminder>"}}`,
		`not json`,
		``,
	}, "\n")
	out := string(claudecodetest.Redact([]byte(in)))
	want := strings.Join([]string{
		`{"type":"api-request-shape","shape":{"system":[{"type":"text","text":"[redacted: Claude Code's own text, 28 characters]"}],"tools":[{"name":"Bash","description":"[redacted: Claude Code's own text, 5 characters]","input_schema":{"type":"object","properties":{"description":{"description":"[redacted: Claude Code's own text, 12 characters]","type":"string","enum":["a","b"]}},"required":["description"]}}]},"n":1.50,"ok":true,"z":null}`,
		`{"type":"attachment","attachment":{"type":"skill_listing","content":"[redacted: Claude Code's own text, 20 characters]","skillCount":1,"names":["skill"]},"rendered":[{"content":"[redacted: Claude Code's own text, 41 characters]"}],"uuid":"u1"}`,
		`{"type":"attachment","attachment":{"type":"environment","snapshot":{"workingDirectory":"/p"}},"rendered":[{"content":"[redacted: Claude Code's own text, 3 characters]"}]}`,
		`{"type":"api-request-blob","hash":"h","message":{"role":"user","content":[{"type":"text","text":"[redacted: Claude Code's own text, 48 characters]"},{"type":"text","text":"## The request\nBaton's prompt"}]}}`,
		`{"type":"api-request-blob","hash":"h","message":{"role":"system","content":[{"type":"text","text":"[redacted: Claude Code's own text, 46 characters]"}]}}`,
		`{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"You are Claude Code"},{"type":"tool_use","id":"t","name":"Bash","input":{"command":"ls","description":"list"}}],"usage":{"input_tokens":3}}}`,
		`{"type":"user","message":{"role":"user","content":"<system-reminder>x</system-reminder>"}}`,
		`not json`,
		``,
	}, "\n")
	if out != want {
		t.Fatalf("Redact:\n%s\nwant:\n%s", out, want)
	}
	if again := string(claudecodetest.Redact([]byte(out))); again != out {
		t.Fatalf("Redact is not idempotent:\n%s", again)
	}
	// The shapes are kept: every key and every value's JSON type.
	inLines, outLines := claudecodetest.Lines([]byte(in)), claudecodetest.Lines([]byte(out))
	if len(inLines) != len(outLines) {
		t.Fatalf("%d lines in, %d out", len(inLines), len(outLines))
	}
	for i := range inLines {
		var a, b any
		if json.Unmarshal(inLines[i], &a) != nil {
			continue
		}
		if err := json.Unmarshal(outLines[i], &b); err != nil {
			t.Fatalf("line %d is no longer JSON: %v", i, err)
		}
		if !reflect.DeepEqual(shapeOf(a), shapeOf(b)) {
			t.Errorf("line %d changed shape:\n%v\n%v", i, shapeOf(a), shapeOf(b))
		}
	}
}

// shapeOf replaces every string by "string", keeping keys, types and
// array lengths.
func shapeOf(v any) any {
	switch v := v.(type) {
	case map[string]any:
		m := map[string]any{}
		for k, x := range v {
			m[k] = shapeOf(x)
		}
		return m
	case []any:
		s := make([]any, len(v))
		for i, x := range v {
			s[i] = shapeOf(x)
		}
		return s
	case string:
		return "string"
	}
	return v
}
