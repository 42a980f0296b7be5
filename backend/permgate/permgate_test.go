package permgate

import (
	"context"
	"encoding/json"
	"errors"
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

// Two identical calls, one asked about and denied by the user, the other
// let through by the mode: the prompt that names its call (the CLI's) is
// matched to that call, not to the first with the same input.
func TestByModeMatchesThePromptsOwnCall(t *testing.T) {
	g := New(nil, permrules.Lists{}, "/home", slog.Default())
	at := time.Unix(100, 0)
	id := session.ID("s1")
	first := transcript.ToolCall{ID: "toolu_1", Name: "Bash", Raw: bash("make")}
	second := transcript.ToolCall{ID: "toolu_2", Name: "Bash", Raw: bash("make")}
	g.Prompted(id, session.PermissionRequest{RequestID: "q", ToolName: "Bash", Input: bash("make"), ToolUseID: "toolu_2"})
	rows := g.ByMode(id, "t1", transcript.Digest{Calls: []transcript.ToolCall{first, second}, Done: []string{"toolu_1", "toolu_2"},
		Failed: []string{"toolu_2"}}, "default", at)
	rows = append(rows, g.ByMode(id, "t1", transcript.Digest{Result: true, Denied: []string{"toolu_2"}}, "default", at)...)
	if len(rows) != 1 || rows[0].Decision != "allow" || rows[0].DecidedBy != DecidedByMode {
		t.Fatalf("the first call ran by the mode; the second was the user's to deny: %+v", rows)
	}

	// Without the call's id (Claude Desktop), the first identical call is taken as the prompted one.
	g.Prompted(id, session.PermissionRequest{RequestID: "q2", ToolName: "Bash", Input: bash("make")})
	rows = g.ByMode(id, "t1", transcript.Digest{Calls: []transcript.ToolCall{first, second}, Done: []string{"toolu_1", "toolu_2"}}, "default", at)
	if len(rows) != 1 {
		t.Fatalf("one of two identical calls was prompted: %+v", rows)
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

// responder records the answers it gives, and fails for request "bad".
type responder map[string]session.PermissionDecision

func (r responder) RespondPermission(_ context.Context, id string, d session.PermissionDecision, _ json.RawMessage) error {
	if id == "bad" {
		return errors.New("gone")
	}
	r[id] = d
	return nil
}

// Answer answers what the rules cover, each request once; the others, and
// those the host could not take, are left to the user.
func TestAnswer(t *testing.T) {
	g := New(nil, permrules.Lists{Deny: []string{"Bash(rm:*)"}}, "/home", slog.Default())
	g.Run = RunRules([]string{"Bash(go test:*)"}, nil, time.Unix(1, 0))
	if pr, added := g.Allow("Bash(go test:*)", time.Unix(2, 0)); added || pr.Rule != "Bash(go test:*)" {
		t.Fatal("a rule the run has is not added again")
	}
	if _, added := g.Allow("Bash(ls:*)", time.Unix(2, 0)); !added || len(g.Run) != 2 {
		t.Fatalf("a new rule is added: %+v", g.Run)
	}
	reqs := []session.PermissionRequest{{RequestID: "go", ToolName: "Bash", Input: bash("go test ./...")},
		{RequestID: "rm", ToolName: "Bash", Input: bash("rm -rf x")}, {RequestID: "make", ToolName: "Bash", Input: bash("make")},
		{RequestID: "bad", ToolName: "Bash", Input: bash("ls")}}
	b := responder{}
	left, done := g.Answer(context.Background(), b, reqs, "/p")
	if len(done) != 2 || b["go"] != session.AllowOnce || b["rm"] != session.Deny || done[1].Verdict != permrules.Deny {
		t.Fatalf("answered %v, done %+v", b, done)
	}
	if len(left) != 2 || left[0].RequestID != "make" || left[1].RequestID != "bad" {
		t.Fatalf("left %+v", left)
	}
	if left, done := g.Answer(context.Background(), b, reqs[:2], "/p"); len(left)+len(done) != 0 {
		t.Fatalf("answered once: %+v %+v", left, done)
	}
	if left, _ := g.Answer(context.Background(), nil, reqs[2:3], "/p"); len(left) != 1 {
		t.Fatal("without a host that answers, all are left")
	}
	if rules := RunRules([]string{"Read"}, []string{"Bash(rm:*)"}, time.Unix(3, 0)); len(rules) != 2 || rules[0].Deny || !rules[1].Deny {
		t.Fatalf("run rules %+v", rules)
	}
}
