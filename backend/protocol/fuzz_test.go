package protocol

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// corpusSeeds returns the texts of the corpus (small files only, so the
// fuzzing engine stays fast) and the contents of every block in them.
func corpusSeeds(f *testing.F) (texts, contents []string) {
	f.Helper()
	p := newTestParser(f)
	files, err := filepath.Glob(filepath.Join(corpusDir, "*"))
	if err != nil {
		f.Fatal(err)
	}
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		texts = append(texts, string(data))
		in, err := DecodeInput(data)
		if err != nil {
			f.Fatalf("%s: %v", name, err)
		}
		text := in.Text
		if in.Transcript {
			for _, r := range assistantReplies(in.Entries) {
				text += r.text + "\n"
			}
		}
		for _, b := range p.FindBlocks(text) {
			contents = append(contents, b.Content)
		}
	}
	return texts, contents
}

// FuzzParse checks that parsing any text never panics, that blocks are
// found in order inside the text, that the result marshals, and that every
// valid response re-marshals and re-parses to the same value.
func FuzzParse(f *testing.F) {
	texts, contents := corpusSeeds(f)
	for _, s := range texts {
		f.Add(s)
	}
	for _, s := range contents {
		f.Add(s)
	}
	p := newTestParser(f)
	f.Fuzz(func(t *testing.T, text string) {
		res := p.ParseText(text, Options{Phase: PhaseCompletion})
		if _, err := json.Marshal(res); err != nil {
			t.Fatalf("the result does not marshal: %v", err)
		}
		prev := 0
		for _, b := range p.FindBlocks(text) {
			if b.Start < prev || b.End < b.Start || b.End > len(text) || !strings.Contains(text[b.Start:b.End], b.Content) {
				t.Fatalf("block out of place: %+v (previous end %d, text length %d)", b, prev, len(text))
			}
			prev = b.End
		}
		if (res.Failure == nil) != (len(res.Valid()) > 0 && hasPhase(res, PhaseCompletion)) {
			t.Fatalf("failure %v does not match the valid responses %d", res.Failure, len(res.Valid()))
		}
		for _, r := range res.Valid() {
			checkRoundTrip(t, p, r)
		}
	})
}

func hasPhase(res Result, ph Phase) bool {
	_, ok := res.Last(ph)
	return ok
}

// FuzzParseInput checks files as `baton parse` reads them: transcripts in
// any shape, JSON Lines and text.
func FuzzParseInput(f *testing.F) {
	texts, _ := corpusSeeds(f)
	for _, s := range texts {
		f.Add([]byte(s))
	}
	p := newTestParser(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		in, err := DecodeInput(data)
		if err != nil {
			return
		}
		res := p.ParseInput(in, Options{})
		if res.Failure != nil {
			_ = p.BuildReprompt(*res.Failure, PhaseTaskList)
		}
		for _, r := range res.Valid() {
			checkRoundTrip(t, p, r)
		}
	})
}

// fuzzStep checks the properties every repair step has: it never panics,
// leaves valid JSON alone, reports a count exactly when it changed the text,
// and keeps valid UTF-8 valid. Idempotent steps find nothing left to fix
// in their own output.
func fuzzStep(f *testing.F, step func(string) (string, int), idempotent bool, seeds ...string) {
	texts, contents := corpusSeeds(f)
	for _, s := range append(append(seeds, contents...), texts...) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out, n := step(s)
		if n < 0 {
			t.Fatalf("negative count %d", n)
		}
		if n == 0 && out != s {
			t.Fatalf("the text changed but no repair was counted:\n%q\n%q", s, out)
		}
		if json.Valid([]byte(s)) && (n != 0 || out != s) {
			t.Fatalf("valid JSON was changed (%d repairs):\n%q\n%q", n, s, out)
		}
		if utf8.ValidString(s) && !utf8.ValidString(out) {
			t.Fatalf("valid UTF-8 became invalid:\n%q\n%q", s, out)
		}
		if idempotent {
			if again, m := step(out); m != 0 {
				t.Fatalf("a second pass still fixed %d things:\n%q\n%q\n%q", m, s, out, again)
			}
		}
	})
}

func FuzzRepairBOM(f *testing.F) {
	fuzzStep(f, StripBOM, true, "\uFEFF{\"a\":1}", " \uFEFF\uFEFF[1]", "\uFEFF\v\uFEFF{\"a\":1}", "\uFEFF\u0085\uFEFF[", "\uFEFF\f\u00a0\uFEFF")
}

func FuzzRepairCodeFence(f *testing.F) {
	fuzzStep(f, StripCodeFence, true, "```json\n{\"a\":1}\n```", "```\n[1]\n```\ntrailing", "```go\nx := 1\n```")
}

func FuzzRepairSmartQuotes(f *testing.F) {
	fuzzStep(f, FixSmartQuotes, false, "{“a”: “b “c” d”}", "{‘a’: ‘it’s’}", `{"a": "“kept”"}`)
}

func FuzzRepairSingleQuotes(f *testing.F) {
	fuzzStep(f, FixSingleQuotes, false, `{'a': 'it\'s "x"'}`, `{"a": "it's"}`)
}

func FuzzRepairComments(f *testing.F) {
	fuzzStep(f, StripComments, true, "{\"a\": 1 // c\n, /* b */ \"b\": \"//x\"}", "{/* unclosed")
}

func FuzzRepairUnquotedKeys(f *testing.F) {
	fuzzStep(f, QuoteKeys, true, "{a: 1, b_c: {d-e: true}}", `{"a": "{b: 1}"}`)
}

func FuzzRepairTrailingCommas(f *testing.F) {
	fuzzStep(f, RemoveTrailingCommas, true, "[1,2,,]", "{\"a\": [1,], /* c */ }", `{"a": ",]"}`)
}

func FuzzRepairRawNewlines(f *testing.F) {
	fuzzStep(f, EscapeRawNewlines, true, "{\"a\": \"x\ny\tz\r\n\"}", "{\"a\": \"unclosed\n")
}

// FuzzRepairJSON checks the whole repair: valid JSON comes back trimmed with
// no repairs, and a repair is only reported when a step changed the text.
func FuzzRepairJSON(f *testing.F) {
	_, contents := corpusSeeds(f)
	for _, s := range contents {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r := RepairJSON(s)
		trimmed := strings.TrimSpace(s)
		if json.Valid([]byte(trimmed)) && (len(r.Applied) > 0 || r.Text != trimmed) {
			t.Fatalf("valid JSON was repaired: %q -> %+v", s, r)
		}
		if len(r.Applied) == 0 && r.Text != trimmed {
			t.Fatalf("the text changed with no repair reported: %q -> %q", s, r.Text)
		}
		for _, a := range r.Applied {
			if a.Count <= 0 || a.Description() == "" {
				t.Fatalf("bad repair record %+v", a)
			}
		}
	})
}
