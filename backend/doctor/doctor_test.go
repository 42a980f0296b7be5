package doctor

import (
	"strings"
	"testing"
)

// Print writes what "baton doctor" has always printed: checks padded to
// the longest name (at least 9), a fix under each failure, then the lists.
func TestPrint(t *testing.T) {
	r := Report{
		Checks: []Check{
			{Name: "endpoint", OK: true, Detail: "http://127.0.0.1:9222 answers"},
			{Name: "methods", Detail: "missing: getTranscript", Fix: "Update Claude Desktop."},
		},
		Lists: []List{{Title: "LocalSessions methods", Items: []Item{
			{Name: "getAll", OK: true, State: "present", Note: "required"},
			{Name: "getTranscript", State: "missing", Note: "required"},
		}}, {Title: "empty"}},
	}
	var b strings.Builder
	r.Print(&b)
	want := "ok   endpoint  http://127.0.0.1:9222 answers\n" +
		"FAIL methods   missing: getTranscript\n" +
		"     fix: Update Claude Desktop.\n" +
		"LocalSessions methods:\n" +
		"  getAll                     present (required)\n" +
		"  getTranscript              missing (required)\n"
	if b.String() != want {
		t.Fatalf("Print:\n%s\nwant:\n%s", b.String(), want)
	}
	if c, failed := r.Failed(); !failed || c.Name != "methods" {
		t.Fatalf("Failed() = %+v, %v", c, failed)
	}

	b.Reset()
	Report{OK: true, Checks: []Check{{Name: "Claude Code CLI", OK: true, Detail: "/usr/bin/claude"}, {Name: "Version", OK: true, Detail: "2.1.328"}}}.Print(&b)
	if want := "ok   Claude Code CLI /usr/bin/claude\nok   Version         2.1.328\n"; b.String() != want {
		t.Fatalf("Print with a long name:\n%q\nwant\n%q", b.String(), want)
	}
	if _, failed := (Report{OK: true}).Failed(); failed {
		t.Fatal("a report without checks has a failed one")
	}
}
