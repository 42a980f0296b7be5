package protocol

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

const (
	corpusDir = "testdata/corpus"
	goldenDir = "testdata/golden"
)

// corpusCase is one input of the golden corpus. The file name says which
// phase was asked for: "<phase>--<description>.<ext>", with "any" for none.
type corpusCase struct {
	name  string
	data  []byte
	phase Phase
}

func phaseOfName(t testing.TB, name string) Phase {
	t.Helper()
	prefix, _, ok := strings.Cut(name, "--")
	if !ok {
		t.Fatalf("corpus file %s is not named <phase>--<description>", name)
	}
	if prefix == "any" {
		return ""
	}
	p, err := ParsePhase(prefix)
	if err != nil {
		t.Fatalf("corpus file %s: %v", name, err)
	}
	return p
}

// corpusCases returns the committed corpus files and the generated huge
// inputs, which are built here rather than committed.
func corpusCases(t testing.TB) []corpusCase {
	t.Helper()
	files, err := os.ReadDir(corpusDir)
	if err != nil {
		t.Fatalf("read corpus: %v", err)
	}
	var out []corpusCase
	for _, f := range files {
		if f.IsDir() {
			continue
		}
		data, err := os.ReadFile(filepath.Join(corpusDir, f.Name()))
		if err != nil {
			t.Fatalf("read corpus file: %v", err)
		}
		out = append(out, corpusCase{name: f.Name(), data: data, phase: phaseOfName(t, f.Name())})
	}
	for _, g := range generatedCases() {
		out = append(out, corpusCase{name: g.name, data: g.data, phase: phaseOfName(t, g.name)})
	}
	return out
}

// goldenReport is what a golden file holds: what `baton parse --json`
// prints, without the file name.
type goldenReport struct {
	Input    string `json:"input"`
	Phase    Phase  `json:"phase,omitempty"`
	Result   Result `json:"result"`
	Reprompt string `json:"reprompt,omitempty"`
}

func runCase(t testing.TB, p *Parser, c corpusCase) (goldenReport, Result) {
	t.Helper()
	in, err := DecodeInput(c.data)
	if err != nil {
		t.Fatalf("%s: decode input: %v", c.name, err)
	}
	res := p.ParseInput(in, Options{Phase: c.phase})
	rep := goldenReport{Input: in.Kind(), Phase: c.phase, Result: res}
	if res.Failure != nil {
		rep.Reprompt = p.BuildReprompt(*res.Failure, c.phase)
	}
	return rep, res
}

func marshalGolden(v any) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		panic(err)
	}
	return buf.Bytes()
}

func TestGoldenCorpus(t *testing.T) {
	t.Parallel()
	p := newTestParser(t)
	cases := corpusCases(t)
	if len(cases) < 60 {
		t.Errorf("the corpus has %d cases, want at least 60", len(cases))
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			rep, res := runCase(t, p, c)
			got := marshalGolden(rep)
			golden := filepath.Join(goldenDir, strings.TrimSuffix(c.name, filepath.Ext(c.name))+".golden.json")
			if *update {
				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("read golden file (run go test -update to create it): %v", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s differs from the golden file %s; run go test ./backend/protocol -update and review the diff.\ngot:\n%s", c.name, golden, got)
			}
			for _, r := range res.Valid() {
				checkRoundTrip(t, p, r)
			}
		})
	}
}

// TestGoldenFilesHaveInputs catches golden files left behind by a renamed
// or deleted corpus file.
func TestGoldenFilesHaveInputs(t *testing.T) {
	t.Parallel()
	names := map[string]bool{}
	for _, c := range corpusCases(t) {
		names[strings.TrimSuffix(c.name, filepath.Ext(c.name))+".golden.json"] = true
	}
	files, err := os.ReadDir(goldenDir)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if !names[f.Name()] {
			t.Errorf("golden file %s has no corpus input", f.Name())
		}
	}
}

// checkRoundTrip formats a valid response as a block, parses it again and
// wants the same phase and data, valid.
func checkRoundTrip(t testing.TB, p *Parser, r Response) {
	t.Helper()
	block, err := p.Format(r.Data)
	if err != nil {
		t.Fatalf("format: %v", err)
	}
	again := p.ParseText(block, Options{})
	if len(again.Responses) != 1 {
		t.Fatalf("re-parse of the formatted block found %d responses:\n%s", len(again.Responses), block)
	}
	a := again.Responses[0]
	if !a.Valid() || a.Phase != r.Phase || len(a.Repairs) > 0 {
		t.Fatalf("re-parse: status %s phase %s repairs %v errors %v, want valid %s with no repairs:\n%s", a.Status, a.Phase, a.Repairs, a.Errors, r.Phase, block)
	}
	if !reflect.DeepEqual(a.Data, r.Data) {
		t.Fatalf("re-parse changed the data:\nbefore %#v\nafter  %#v\nblock:\n%s", r.Data, a.Data, block)
	}
}

func newTestParser(t testing.TB) *Parser {
	t.Helper()
	p, err := NewParser(DefaultDelimiters(), nil)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// generated is one generated corpus input.
type generated struct {
	name string
	data []byte
}

const oneMB = 1 << 20

// generatedCases builds the huge (1 MB) inputs of the corpus
// deterministically.
func generatedCases() []generated {
	return []generated{
		{"completion--generated-huge-transcript-1mb.json", hugeTranscript(oneMB)},
		{"completion--generated-huge-text-block-at-end-1mb.txt", []byte(hugeProse(oneMB) + "\n\n" + DefaultStart + "\n{\"phase\": \"completion\", \"data\": {\"task_id\": \"task_042\", \"status\": \"success\", \"summary\": \"Documented every endpoint\",}}\n" + DefaultEnd + "\n")},
		{"completion--generated-huge-incomplete-1mb.txt", []byte("Here is the report.\n" + DefaultStart + "\n{\"phase\": \"completion\", \"data\": {\"task_id\": \"task_042\", \"status\": \"success\", \"output\": \"" + strings.ReplaceAll(hugeProse(oneMB), "\"", "'"))},
		{"any--generated-huge-no-block-1mb.txt", []byte(hugeProse(oneMB) + "\nThe task is complete and I successfully documented the API.\n")},
	}
}

// hugeProse is about n bytes of agent chatter.
func hugeProse(n int) string {
	var b strings.Builder
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, "Step %d: I read handler_%03d.go and noted how it validates input, logs with slog and returns wrapped errors; nothing unusual here.\n", i, i%997)
	}
	return b.String()
}

// hugeTranscript is a transcript of about n bytes: a prompt that carries the
// example block, many tool calls whose inputs and results quote blocks, and
// a final answer split over three entries of one message.
func hugeTranscript(n int) []byte {
	var entries []map[string]any
	entries = append(entries, map[string]any{
		"type": "user", "uuid": "u0",
		"message": map[string]any{"role": "user", "content": "Document the REST API. Answer with:\n" + DefaultStart + "\n{\"phase\":\"completion\",\"data\":{\"task_id\":\"task_001\",\"status\":\"success\"}}\n" + DefaultEnd},
	})
	size := 0
	chunk := hugeProse(8 << 10)
	for i := 0; size < n; i++ {
		id := fmt.Sprintf("toolu_%04d", i)
		entries = append(entries,
			map[string]any{"type": "assistant", "uuid": fmt.Sprintf("a%d", i), "message": map[string]any{
				"id": fmt.Sprintf("msg_%04d", i), "role": "assistant",
				"content": []any{
					map[string]any{"type": "text", "text": fmt.Sprintf("Reading file %d.", i)},
					map[string]any{"type": "tool_use", "id": id, "name": "Read", "input": map[string]any{"file_path": fmt.Sprintf("handler_%03d.go", i), "note": DefaultStart + "{\"phase\":\"completion\",\"data\":{\"task_id\":\"x\",\"status\":\"failed\"}}" + DefaultEnd}},
				},
			}},
			map[string]any{"type": "user", "uuid": fmt.Sprintf("r%d", i), "message": map[string]any{
				"role": "user", "content": []any{map[string]any{"type": "tool_result", "tool_use_id": id, "content": chunk}},
			}},
		)
		size += len(chunk) + 400
	}
	final := []string{
		"All endpoints are documented.\n<<<ORCHESTRATOR_RESP",
		"ONSE>>>\n{\"phase\": \"completion\", \"data\": {\"task_id\": \"task_001\", \"status\": \"success\",",
		" \"summary\": \"Documented 15 endpoints\", \"output_files\": [\"docs/api.md\"]}}\n<<<END_ORCHESTRATOR_RESPONSE>>>",
	}
	for i, txt := range final {
		entries = append(entries, map[string]any{"type": "assistant", "uuid": fmt.Sprintf("final%d", i), "message": map[string]any{
			"id": "msg_final", "role": "assistant", "content": []any{map[string]any{"type": "text", "text": txt}},
		}})
	}
	entries = append(entries, map[string]any{"type": "result", "subtype": "success", "result": final[0] + final[1] + final[2], "uuid": "res"})
	out, err := json.Marshal(entries)
	if err != nil {
		panic(err)
	}
	return out
}

// manyBlocks is about n bytes of progress blocks ending in a completion.
func manyBlocks(n int) []byte {
	var b strings.Builder
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, "Working on file %d.\n%s\n{\"phase\":\"progress\",\"data\":{\"task_id\":\"task_007\",\"status\":\"in_progress\",\"progress_percent\":%d,\"current_action\":\"Documenting handler %d\"}}\n%s\n", i, DefaultStart, i%101, i, DefaultEnd)
	}
	fmt.Fprintf(&b, "%s\n{\"phase\":\"completion\",\"data\":{\"task_id\":\"task_007\",\"status\":\"success\"}}\n%s\n", DefaultStart, DefaultEnd)
	return []byte(b.String())
}

func TestGeneratedCasesAreHuge(t *testing.T) {
	t.Parallel()
	for _, g := range generatedCases() {
		if len(g.data) < oneMB {
			t.Errorf("%s is %d bytes, want at least 1 MB", g.name, len(g.data))
		}
	}
	if !slices.ContainsFunc(generatedCases(), func(g generated) bool { return strings.HasSuffix(g.name, ".json") }) {
		t.Error("no generated transcript")
	}
}
