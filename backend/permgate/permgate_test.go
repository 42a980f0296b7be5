package permgate

import (
	"encoding/json"
	"log/slog"
	"testing"
	"time"

	"github.com/baton-app/baton/backend/permrules"
	"github.com/baton-app/baton/backend/session"
	"github.com/baton-app/baton/backend/store"
	"github.com/baton-app/baton/backend/transcript"
)

func bash(cmd string) json.RawMessage {
	b, _ := json.Marshal(map[string]string{"command": cmd})
	return b
}

// The rules in force are the user's (asked each time), the template's and
// the run's own; a question is always the user's.
func TestDecide(t *testing.T) {
	user := permrules.Lists{}
	g := New(func() permrules.Lists { return user }, permrules.Lists{Deny: []string{"Bash(rm:*)"}}, t.TempDir(), slog.Default())
	req := func(tool string, in json.RawMessage) session.PermissionRequest {
		return session.PermissionRequest{RequestID: "r", ToolName: tool, Input: in}
	}
	if d := g.Decide(req("Bash", bash("go test ./...")), "/p"); d.Verdict != permrules.Ask {
		t.Fatalf("no rule covers go test: %v", d)
	}
	g.Run = append(g.Run, store.PermissionRule{Rule: "Bash(go test:*)"})
	if d := g.Decide(req("Bash", bash("go test ./...")), "/p"); d.Verdict != permrules.Allow || d.Source != "run" {
		t.Fatalf("the run's rule allows go test: %+v", d)
	}
	if d := g.Decide(req("Bash", bash("rm -rf x")), "/p"); d.Verdict != permrules.Deny || d.Source != "template" {
		t.Fatalf("the template denies rm: %+v", d)
	}
	user.Allow = []string{"Bash(ls:*)"} // a changed setting counts at once
	if d := g.Decide(req("Bash", bash("ls")), "/p"); d.Verdict != permrules.Allow || d.Source != "settings" {
		t.Fatalf("the user's rule allows ls: %+v", d)
	}
	if d := g.Decide(req("AskUserQuestion", json.RawMessage(`{}`)), "/p"); d.Verdict != permrules.Ask {
		t.Fatalf("a question is the user's: %+v", d)
	}
	if g.Answered("r") {
		t.Fatal("nothing answered yet")
	}
	g.MarkAnswered("r")
	if !g.Answered("r") {
		t.Fatal("r was answered")
	}
}

// ByMode logs the calls that finished without a prompt: one the session
// prompted for is not the mode's; one that failed waits for the turn's
// result, which says whether it was denied.
func TestByMode(t *testing.T) {
	g := New(nil, permrules.Lists{}, "/home", slog.Default())
	at := time.Unix(100, 0)
	id := session.ID("s1")
	ls := transcript.ToolCall{ID: "c1", Name: "Bash", Raw: bash("ls")}
	asked := transcript.ToolCall{ID: "c2", Name: "Bash", Raw: bash("make")}
	failed := transcript.ToolCall{ID: "c3", Name: "Write", Raw: json.RawMessage(`{"file_path":"/p/a"}`)}
	denied := transcript.ToolCall{ID: "c4", Name: "Write", Raw: json.RawMessage(`{"file_path":"/etc/x"}`)}
	g.Prompted(id, session.PermissionRequest{RequestID: "q", ToolName: "Bash", Input: bash("make")})
	rows := g.ByMode(id, "t1", transcript.Digest{Calls: []transcript.ToolCall{ls, asked, failed, denied}, Done: []string{"c1", "c2", "c3", "c4"},
		Failed: []string{"c3", "c4"}}, "acceptEdits", at)
	if len(rows) != 1 || rows[0].Tool != "Bash" || rows[0].Decision != "allow" || rows[0].DecidedBy != DecidedByMode ||
		rows[0].Source != "acceptEdits" || rows[0].TaskID != "t1" || !rows[0].At.Equal(at) {
		t.Fatalf("ls ran by the mode, make was prompted, the failed wait: %+v", rows)
	}
	rows = g.ByMode(id, "t1", transcript.Digest{Result: true, Denied: []string{"c4"}}, "acceptEdits", at)
	if len(rows) != 2 {
		t.Fatalf("the result decides the failed calls: %+v", rows)
	}
	got := map[string]string{}
	for _, r := range rows {
		got[r.Summary] = r.Decision
	}
	if len(got) != 2 || got[rows[0].Summary] == got[rows[1].Summary] {
		t.Fatalf("one allowed, one denied: %+v", rows)
	}
	if rows := g.ByMode(id, "t1", transcript.Digest{Result: true}, "acceptEdits", at); len(rows) != 0 {
		t.Fatalf("nothing left: %+v", rows)
	}
	if Mode("") != session.ModeDefault || Mode("plan") != "plan" {
		t.Fatal("the mode of a template without one is the default")
	}
}

// Describe fills a waiting prompt's summary, key and suggestions (none for
// a question), and the user's answer is a row decided by the user.
func TestDescribeAndUser(t *testing.T) {
	g := New(nil, permrules.Lists{}, "/home", slog.Default())
	p := &store.Permission{RequestID: "r1", ToolName: "Bash", Input: bash("go test ./...")}
	g.Describe("s", p, "/p")
	if p.Summary == "" || p.Key == "" || len(p.Suggestions) == 0 {
		t.Fatalf("described: %+v", p)
	}
	q := &store.Permission{RequestID: "r2", ToolName: "AskUserQuestion", Input: json.RawMessage(`{}`), Suggestions: p.Suggestions}
	g.Describe("s", q, "/p")
	if len(q.Suggestions) != 0 {
		t.Fatalf("a question has no suggestions: %+v", q)
	}
	req := session.PermissionRequest{ToolName: "Bash", Input: bash("ls")}
	if d := User(time.Unix(1, 0), req, session.Deny); d.Decision != "deny" || d.DecidedBy != DecidedByUser || d.Summary == "" {
		t.Fatalf("the user's deny: %+v", d)
	}
	if d := User(time.Unix(1, 0), req, session.AllowAlways); d.Decision != "allow" {
		t.Fatalf("the user's allow: %+v", d)
	}
}
