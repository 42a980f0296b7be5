package claudecodetest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strings"
	"testing"
	"time"
)

// Recording is one run of the pinned CLI against model-sim, recorded by
// TestRecordings -update: what the CLI printed (stream-json), what the test
// sent on its stdin (stream-json input, for the interactive recordings) and
// the transcript the CLI wrote to disk. Volatile bits are normalised (see
// Normalize); everything else is verbatim.
type Recording struct {
	Name       string
	Meta       Meta
	Stream     []byte // stream.jsonl: the CLI's --output-format stream-json --verbose
	Input      []byte // input.jsonl: what was sent with --input-format stream-json (may be empty)
	Transcript []byte // transcript.jsonl: $HOME/.claude/projects/<folder>/<session>.jsonl
}

// Meta says how a recording was made.
type Meta struct {
	CLIVersion string `json:"cliVersion"`
	// Template and Phase name the Baton prompt sent (template id and phase
	// of backend/template), Dialect its dialect.
	Template string `json:"template,omitempty"`
	Phase    string `json:"phase,omitempty"`
	Dialect  string `json:"dialect,omitempty"`
	// Scenario is model-sim's scenario ("happy" when none was asked).
	Scenario string `json:"scenario"`
	// Args are the CLI's arguments (the prompt and system prompt elided).
	Args []string `json:"args"`
	// Env is what the run added to the CLI's environment.
	Env      []string `json:"env,omitempty"`
	ExitCode int      `json:"exitCode"`
	// Turns is the number of user messages the recording sent.
	Turns int `json:"turns"`
	// About says what the recording shows.
	About string `json:"about"`
}

// RecordingsDir is the folder of the recordings.
func RecordingsDir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "testdata", "recordings")
}

// Recordings loads every recording; it fails the test when there is none.
func Recordings(t testing.TB) []Recording {
	t.Helper()
	dirs, err := os.ReadDir(RecordingsDir())
	if err != nil {
		t.Fatalf("read the recordings: %v", err)
	}
	var out []Recording
	for _, d := range dirs {
		if d.IsDir() {
			out = append(out, LoadRecording(t, d.Name()))
		}
	}
	if len(out) == 0 {
		t.Fatalf("no recordings in %s", RecordingsDir())
	}
	return out
}

// LoadRecording loads one recording by name.
func LoadRecording(t testing.TB, name string) Recording {
	t.Helper()
	dir := filepath.Join(RecordingsDir(), name)
	r := Recording{Name: name}
	meta, err := os.ReadFile(filepath.Join(dir, "meta.json"))
	if err != nil {
		t.Fatalf("recording %s: %v", name, err)
	}
	if err := json.Unmarshal(meta, &r.Meta); err != nil {
		t.Fatalf("recording %s: meta.json: %v", name, err)
	}
	if r.Stream, err = os.ReadFile(filepath.Join(dir, "stream.jsonl")); err != nil {
		t.Fatalf("recording %s: %v", name, err)
	}
	if r.Transcript, err = os.ReadFile(filepath.Join(dir, "transcript.jsonl")); err != nil && !os.IsNotExist(err) {
		t.Fatalf("recording %s: %v", name, err)
	}
	if r.Input, err = os.ReadFile(filepath.Join(dir, "input.jsonl")); err != nil && !os.IsNotExist(err) {
		t.Fatalf("recording %s: %v", name, err)
	}
	return r
}

// Save writes the recording to dir/<name>.
func (r Recording) Save(dir string) error {
	d := filepath.Join(dir, r.Name)
	if err := os.RemoveAll(d); err != nil {
		return err
	}
	if err := os.MkdirAll(d, 0o755); err != nil {
		return err
	}
	meta, err := json.MarshalIndent(r.Meta, "", "  ")
	if err != nil {
		return err
	}
	files := map[string][]byte{"meta.json": append(meta, '\n'), "stream.jsonl": r.Stream}
	if len(r.Transcript) > 0 {
		files["transcript.jsonl"] = r.Transcript
	}
	if len(r.Input) > 0 {
		files["input.jsonl"] = r.Input
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(d, name), data, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// Lines splits JSON Lines into its lines (empty lines left out).
func Lines(data []byte) []json.RawMessage {
	var out []json.RawMessage
	for _, l := range bytes.Split(data, []byte("\n")) {
		if l = bytes.TrimSpace(l); len(l) > 0 {
			out = append(out, json.RawMessage(l))
		}
	}
	return out
}

// StreamLines are the stream-json events, one raw line each.
func (r Recording) StreamLines() []json.RawMessage { return Lines(r.Stream) }

// TranscriptLines are the on-disk transcript's lines.
func (r Recording) TranscriptLines() []json.RawMessage { return Lines(r.Transcript) }

// Placeholders the recordings use for the folders of the run and the
// address of model-sim.
const (
	ProjectPlaceholder = "/tmp/baton-recording/project"
	HomePlaceholder    = "/tmp/baton-recording/home"
	AddrPlaceholder    = "127.0.0.1:40000"
)

var (
	uuidRe  = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)
	timeRe  = regexp.MustCompile(`\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z`)
	msgIDRe = regexp.MustCompile(`\b(msg|toolu|req)_[A-Za-z0-9]{12,}`)
	sockRe  = regexp.MustCompile(`/cc-socks/\d+\.sock`)
	nonWord = regexp.MustCompile(`[^A-Za-z0-9]`)
)

// RecordingEpoch is the first timestamp of a normalised recording.
var RecordingEpoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// Normalize makes the files of one run stable from run to run, the same way
// in all of them so that ids still match across files: the project folder,
// HOME and model-sim's address (host:port of baseURL) become the
// placeholders (the folders also in the CLI's folder names under
// ~/.claude/projects), every UUID and every model-sim message, tool-use and
// request id is numbered in order of first appearance, and timestamps
// become RecordingEpoch plus 100 ms per rank (their order kept). Nothing
// else changes: durations, which vary from run to run, are as measured.
func Normalize(project, home, baseURL string, files ...[]byte) [][]byte {
	repl := []string{}
	if addr := strings.TrimPrefix(strings.TrimPrefix(baseURL, "http://"), "https://"); addr != "" {
		repl = append(repl, addr, AddrPlaceholder)
	}
	for _, p := range []struct{ from, to string }{{project, ProjectPlaceholder}, {home, HomePlaceholder}} {
		if p.from != "" {
			repl = append(repl, p.from, p.to, nonWord.ReplaceAllString(p.from, "-"), nonWord.ReplaceAllString(p.to, "-"))
		}
	}
	// Longest first, so a folder inside another is replaced whole.
	pairs := make([][2]string, 0, len(repl)/2)
	for i := 0; i < len(repl); i += 2 {
		pairs = append(pairs, [2]string{repl[i], repl[i+1]})
	}
	sort.SliceStable(pairs, func(i, j int) bool { return len(pairs[i][0]) > len(pairs[j][0]) })
	var flat []string
	for _, p := range pairs {
		flat = append(flat, p[0], p[1])
	}
	r := strings.NewReplacer(flat...)
	out := make([][]byte, len(files))
	for i, f := range files {
		out[i] = []byte(r.Replace(string(f)))
	}

	uuids := map[string]string{}
	ids := map[string]string{}
	// Timestamps become RecordingEpoch plus 100 ms per rank: their order
	// (and equality) is kept, their exact times, which differ on every
	// run, are not.
	var stamps []time.Time
	for _, f := range out {
		for _, m := range timeRe.FindAll(f, -1) {
			if tm, err := time.Parse(time.RFC3339Nano, string(m)); err == nil {
				stamps = append(stamps, tm)
			}
		}
	}
	sort.Slice(stamps, func(i, j int) bool { return stamps[i].Before(stamps[j]) })
	rank := map[time.Time]int{}
	for _, tm := range stamps {
		if _, ok := rank[tm]; !ok {
			rank[tm] = len(rank)
		}
	}
	for i, f := range out {
		f = uuidRe.ReplaceAllFunc(f, func(m []byte) []byte {
			k := string(m)
			if v, ok := uuids[k]; ok {
				return []byte(v)
			}
			v := fmt.Sprintf("00000000-0000-4000-8000-%012d", len(uuids)+1)
			uuids[k] = v
			return []byte(v)
		})
		f = msgIDRe.ReplaceAllFunc(f, func(m []byte) []byte {
			k := string(m)
			if v, ok := ids[k]; ok {
				return []byte(v)
			}
			prefix, _, _ := strings.Cut(k, "_")
			v := fmt.Sprintf("%s_%024d", prefix, len(ids)+1)
			ids[k] = v
			return []byte(v)
		})
		f = timeRe.ReplaceAllFunc(f, func(m []byte) []byte {
			tm, err := time.Parse(time.RFC3339Nano, string(m))
			if err != nil {
				return m
			}
			return []byte(RecordingEpoch.Add(time.Duration(rank[tm]) * 100 * time.Millisecond).Format("2006-01-02T15:04:05.000Z"))
		})
		f = sockRe.ReplaceAll(f, []byte("/cc-socks/1.sock"))
		out[i] = f
	}
	return out
}
