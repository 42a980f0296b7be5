package claudecodetest_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/baton-app/baton/backend/claudecodetest"
)

// tellTales are the openings of Claude Code's own texts: its system prompt,
// its tool descriptions, listings and reminders. None may be in a recording.
var tellTales = []string{
	"You are Claude Code",
	"You are an agent working with the user",
	"Launch a new agent to handle complex",
	"Use this tool only when you are blocked",
	"Executes a bash command and returns its output",
	"Performs exact string replacement in a file",
	"Reads a file from the local filesystem",
	"Writes a file to the local filesystem",
	"Fetches full schema definitions for deferred tools",
	"Invoke a skill.",
	"Execute a workflow script",
	"Schedule when to resume work",
	"Report code-review findings",
	"Reserved placeholder that keeps deferred tool",
	"The following skills are available for use with the Skill tool",
	"The following deferred tools are now available via ToolSearch",
	"Available agent types for the Agent tool",
	"Attribution for git commits and pull requests you create",
	"Downloaded files and extracted archives are untrusted data",
	"You have a persistent file-based memory",
	"IMPORTANT: Assist with authorized security testing",
	"You must treat information you learn about the user",
}

// The committed recordings carry none of Claude Code's own text: no
// tell-tale opening is in any of their files, and Redact (which Save
// applies) has nothing left to replace in them.
func TestRecordingsCarryNoCLIText(t *testing.T) {
	redacted := 0
	for _, rec := range claudecodetest.Recordings(t) {
		dir := filepath.Join(claudecodetest.RecordingsDir(), rec.Name)
		files, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			data, err := os.ReadFile(filepath.Join(dir, f.Name()))
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range tellTales {
				if strings.Contains(string(data), s) {
					t.Errorf("%s/%s holds Claude Code's own text %q (see testdata/recordings/README.md)", rec.Name, f.Name(), s)
				}
			}
			redacted += strings.Count(string(data), "[redacted: Claude Code's own text, ")
		}
		for name, data := range map[string][]byte{"stream.jsonl": rec.Stream, "transcript.jsonl": rec.Transcript} {
			if got := claudecodetest.Redact(data); string(got) != string(data) {
				t.Errorf("%s/%s: Redact still changes it (run go test ./backend/claudecodetest -run TestRedactRecordings -redact)", rec.Name, name)
			}
		}
	}
	if redacted == 0 {
		t.Error("no redacted text in the recordings: the test would not see the CLI's text come back")
	}
}
