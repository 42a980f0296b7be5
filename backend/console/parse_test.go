package console

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/baton-app/baton/backend/protocol"
)

// The corpus and golden files of the protocol package.
const (
	corpusDir = "../protocol/testdata/corpus"
	goldenDir = "../protocol/testdata/golden"
)

// goldenReport is the part of a golden file that "baton parse" checks.
type goldenReport struct {
	Reprompt string `json:"reprompt"`
}

// phaseOfName reads the phase asked for from a corpus file name:
// "<phase>--<description>.<ext>", with "any" for none.
func phaseOfName(t testing.TB, name string) protocol.Phase {
	t.Helper()
	prefix, _, ok := strings.Cut(name, "--")
	if !ok {
		t.Fatalf("corpus file %s is not named <phase>--<description>", name)
	}
	if prefix == "any" {
		return ""
	}
	p, err := protocol.ParsePhase(prefix)
	if err != nil {
		t.Fatalf("corpus file %s: %v", name, err)
	}
	return p
}

// TestRunParseCLICorpus runs `baton parse --json` on every committed corpus
// file and compares with the golden result; the exit code says whether a
// valid answer was found.
func TestRunParseCLICorpus(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob(filepath.Join(corpusDir, "*"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no corpus files: %v", err)
	}
	for _, file := range files {
		name := filepath.Base(file)
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			args := []string{file, "--json"}
			if ph := phaseOfName(t, name); ph != "" {
				args = append(args, "--phase", string(ph))
			}
			var stdout, stderr bytes.Buffer
			code := ParseCLI(args, &stdout, &stderr)
			var got struct {
				File     string          `json:"file"`
				Input    string          `json:"input"`
				Result   json.RawMessage `json:"result"`
				Reprompt string          `json:"reprompt"`
			}
			if err := json.Unmarshal(stdout.Bytes(), &got); err != nil {
				t.Fatalf("exit %d, output is not JSON (%v): %s %s", code, err, stdout.String(), stderr.String())
			}
			goldenData, err := os.ReadFile(filepath.Join(goldenDir, strings.TrimSuffix(name, filepath.Ext(name))+".golden.json"))
			if err != nil {
				t.Fatal(err)
			}
			var want goldenReport
			var wantRaw struct {
				Result json.RawMessage `json:"result"`
			}
			if err := json.Unmarshal(goldenData, &wantRaw); err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(goldenData, &struct {
				Reprompt *string `json:"reprompt"`
			}{&want.Reprompt}); err != nil {
				t.Fatal(err)
			}
			if !jsonEqual(t, got.Result, wantRaw.Result) || got.Reprompt != want.Reprompt {
				t.Fatalf("baton parse differs from the golden file:\n%s", stdout.String())
			}
			wantCode := 0
			if want.Reprompt != "" {
				wantCode = 1
			}
			if code != wantCode || stderr.Len() != 0 {
				t.Fatalf("exit %d (want %d), stderr %q", code, wantCode, stderr.String())
			}
		})
	}
}

func jsonEqual(t *testing.T, a, b json.RawMessage) bool {
	t.Helper()
	var x, y any
	if err := json.Unmarshal(a, &x); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &y); err != nil {
		t.Fatal(err)
	}
	return bytes.Equal(mustMarshal(t, x), mustMarshal(t, y))
}

func mustMarshal(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestRunParseCLIHuman(t *testing.T) {
	t.Parallel()
	tests := []struct {
		file string
		args []string
		code int
		want []string
	}{
		{"task_list--repair-everything-at-once.txt", nil, 0, []string{"plain text", "phase task_list, orchestrator dialect, valid", "repaired: removed 6 trailing commas", `"id": "task_001"`, "result: a valid answer was found"}},
		{"completion--transcript-split-across-entries.json", []string{"--phase", "completion"}, 0, []string{"transcript with 6 entries", "message m9", "valid"}},
		{"progress--percent-140.txt", []string{"--phase=progress"}, 1, []string{"error   data.progress_percent: 140 is out of range (0 to 100)", "warning data.files_processed", "re-prompt Baton would send:", "  | Baton could not read your last reply"}},
		{"any--no-block-task-done.txt", nil, 1, []string{"keywords suggest completion (confidence 1.00, unstructured)", "no valid answer"}},
		{"completion--attempt-completion-clarification.txt", []string{"--phase", "completion"}, 0, []string{"attempt_completion dialect, without delimiters, valid", `"status": "needs_input"`}},
		{"any--transcript-odd-items.json", nil, 0, []string{"note: 4 items of the transcript are not entries"}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			t.Parallel()
			var stdout, stderr bytes.Buffer
			code := ParseCLI(append([]string{filepath.Join(corpusDir, tt.file)}, tt.args...), &stdout, &stderr)
			if code != tt.code || stderr.Len() != 0 {
				t.Fatalf("exit %d (want %d), stderr %q\n%s", code, tt.code, stderr.String(), stdout.String())
			}
			for _, w := range tt.want {
				if !strings.Contains(stdout.String(), w) {
					t.Errorf("output lacks %q:\n%s", w, stdout.String())
				}
			}
		})
	}
}

func TestRunParseCLIBadInput(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, content string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	empty := write("empty.txt", " \n\t")
	binary := write("image.png", "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
	broken := write("broken.json", "[{\"type\": \"assistant\", \"message\": {\"content\": [")
	numbers := write("numbers.json", "[1, 2, 3]")
	good := filepath.Join(corpusDir, "analysis--clean.txt")
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no file", nil, "needs exactly one FILE"},
		{"two files", []string{good, good}, "needs exactly one FILE"},
		{"missing file", []string{filepath.Join(dir, "nope.json")}, "nope.json does not exist; check the path."},
		{"folder", []string{dir}, "is a folder; give the path of a transcript or text file."},
		{"empty file", []string{empty}, "empty.txt is empty; give a transcript"},
		{"binary file", []string{binary}, "image.png is not a text file"},
		{"broken transcript", []string{broken}, "broken.json looks like a transcript but is not one (line 1, column"},
		{"array without entries", []string{numbers}, "numbers.json looks like a transcript but is not one (the JSON array holds no transcript entries"},
		{"bad phase", []string{good, "--phase", "planning"}, `"planning" is not a phase; use one of analysis, task_list`},
		{"unknown flag", []string{good, "--verbose"}, "flag provided but not defined: -verbose. Usage: baton parse FILE"},
		{"same delimiters", []string{good, "--start", "@@", "--end", "@@"}, "the delimiters cannot be used: start and end delimiters must differ"},
	}
	if os.Geteuid() != 0 {
		locked := write("locked.txt", "secret")
		if err := os.Chmod(locked, 0); err != nil {
			t.Fatal(err)
		}
		tests = append(tests, struct {
			name string
			args []string
			want string
		}{"unreadable file", []string{locked}, "locked.txt cannot be read (permission denied); check its permissions."})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var stdout, stderr bytes.Buffer
			code := ParseCLI(tt.args, &stdout, &stderr)
			if code != 2 {
				t.Fatalf("exit %d, want 2; stderr %q", code, stderr.String())
			}
			msg := stderr.String()
			if !strings.Contains(msg, tt.want) || strings.Count(strings.TrimSpace(msg), "\n") != 0 || stdout.Len() != 0 {
				t.Fatalf("stderr %q, want one line containing %q (stdout %q)", msg, tt.want, stdout.String())
			}
		})
	}
}

func TestRunParseCLICustomDelimiters(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "reply.txt")
	if err := os.WriteFile(path, []byte("Done.\n[[BEGIN]]\n{\"phase\":\"completion\",\"data\":{\"task_id\":\"t\",\"status\":\"success\"}}\n[[END]]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	if code := ParseCLI([]string{"--start", "[[BEGIN]]", "--end", "[[END]]", path, "--phase", "completion"}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s %s", code, stdout.String(), stderr.String())
	}
	stdout.Reset()
	// With the default delimiters the same object is only found as an
	// undelimited phase object, and says so.
	if code := ParseCLI([]string{path, "--phase", "completion"}, &stdout, &stderr); code != 0 || !strings.Contains(stdout.String(), "without delimiters") {
		t.Fatalf("default delimiters: exit %d\n%s", code, stdout.String())
	}
}
