//go:build unix

package claudecode

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/baton-app/baton/backend/session"
)

func TestUUIDFor(t *testing.T) {
	u := "0f3c2a1e-5b6d-4e7f-8a9b-0c1d2e3f4a5b"
	if got := uuidFor(session.ID(u)); got != u {
		t.Errorf("uuidFor(a UUID) = %s, want it unchanged", got)
	}
	a := uuidFor("local___orch_run1_worker_task_001")
	b := uuidFor("local___orch_run1_worker_task_002")
	if !uuidRE.MatchString(a) || a[14] != '5' || a == b {
		t.Errorf("uuidFor: %s and %s, want two different version-5 UUIDs", a, b)
	}
	if a != uuidFor("local___orch_run1_worker_task_001") {
		t.Error("uuidFor is not stable")
	}
}

func TestFindBinary(t *testing.T) {
	if _, err := FindBinary(filepath.Join(t.TempDir(), "claude")); err == nil || !strings.Contains(err.Error(), "is not at") {
		t.Errorf("missing binary: %v", err)
	}
	if _, err := FindBinary(t.TempDir()); err == nil || !strings.Contains(err.Error(), "folder") {
		t.Errorf("folder: %v", err)
	}
	t.Setenv("PATH", t.TempDir())
	if _, err := FindBinary(""); err == nil || !strings.Contains(err.Error(), "not on PATH") {
		t.Errorf("nothing on PATH: %v", err)
	}
}

// TestSessionThroughTheRealCLI starts a session, sends a follow-up, reads
// only what is new, and archives it: the child runs in the folder, events
// arrive as notices, usage and cost come from the CLI's events, the CLI's
// transcript is on disk, and no child is left.
func TestSessionThroughTheRealCLI(t *testing.T) {
	r := newRig(t, "happy")
	dir := project(t)
	ctx := context.Background()
	id := session.ID("local___orch_run1_worker_task_001")
	start := time.Now()
	got, err := r.host.Start(ctx, session.StartOptions{Cwd: dir, Message: "Look at this project.", Title: "worker", ID: id, PermissionMode: "acceptEdits", Model: "sonnet"})
	if err != nil {
		t.Fatal(err)
	}
	if got != id {
		t.Fatalf("Start returned %s, want %s", got, id)
	}
	waitFor(t, r.host, id, time.Minute, "first turn", turnDone(1))
	t.Logf("first turn in %s", time.Since(start))
	es := entries(t, r.host, id)
	if es[0].Type != "user" || !strings.Contains(string(es[0].raw), "Look at this project.") {
		t.Errorf("first entry is not the prompt: %s", es[0].raw)
	}
	var tools, init int
	for _, e := range es {
		if e.Type == "system" && e.Subtype == "init" {
			init++
			var ev struct {
				Cwd, Model, PermissionMode string
				Tools                      []string
			}
			_ = json.Unmarshal(e.raw, &ev)
			if ev.Cwd != dir || ev.PermissionMode != "acceptEdits" || !strings.Contains(ev.Model, "sonnet") {
				t.Errorf("init event: cwd %q, mode %q, model %q", ev.Cwd, ev.PermissionMode, ev.Model)
			}
		}
		if e.Type == "assistant" && strings.Contains(string(e.Message.Content), `"tool_use"`) {
			tools++
		}
	}
	if init != 1 || tools == 0 {
		t.Errorf("init events %d, tool calls %d", init, tools)
	}
	res := results(es)
	if res[0].IsError || res[0].Cost <= 0 {
		t.Errorf("result: error %v, cost %v", res[0].IsError, res[0].Cost)
	}
	info, err := r.host.Session(ctx, id)
	if err != nil || !info.Running || info.TurnRunning || !info.Hidden || info.Cwd != dir || info.Title != "worker" {
		t.Errorf("Session: %+v, %v", info, err)
	}

	// Only what is new after the cursor.
	b, err := r.host.Read(ctx, id, session.Cursor{})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.host.Send(ctx, id, "And now a second look."); err != nil {
		t.Fatal(err)
	}
	waitFor(t, r.host, id, time.Minute, "second turn", turnDone(2))
	nb, err := r.host.Read(ctx, id, b.Next)
	if err != nil {
		t.Fatal(err)
	}
	if nb.Reset || len(nb.Entries) == 0 || nb.Next.Index != nb.Total || nb.Total != b.Total+len(nb.Entries) {
		t.Errorf("second read: reset %v, %d entries, next %d, total %d (first total %d)", nb.Reset, len(nb.Entries), nb.Next.Index, nb.Total, b.Total)
	}
	if !strings.Contains(string(nb.Entries[0]), "And now a second look.") {
		t.Errorf("second read starts with %s", nb.Entries[0])
	}
	if stale, err := r.host.Read(ctx, id, session.Cursor{Index: b.Next.Index, UUID: "not-that-one"}); err != nil || !stale.Reset || len(stale.Entries) != stale.Total {
		t.Errorf("read with a cursor that does not match: reset %v, %d of %d, %v", stale.Reset, len(stale.Entries), stale.Total, err)
	}

	// The CLI's own transcript, under the UUID the id maps to.
	matches, _ := filepath.Glob(filepath.Join(r.home, ".claude", "projects", "*", uuidFor(id)+".jsonl"))
	if len(matches) != 1 {
		t.Errorf("the CLI's transcript of %s is not on disk: %v", uuidFor(id), matches)
	}

	pids := r.host.Running()
	if len(pids) != 1 {
		t.Fatalf("running children: %v", pids)
	}
	if err := r.host.Archive(ctx, id); err != nil {
		t.Fatal(err)
	}
	if left := groupAlive(pids[0]); len(left) > 0 {
		t.Errorf("after Archive, claude's group is alive: %v", left)
	}
	info, _ = r.host.Session(ctx, id)
	if info.Running || !info.Archived {
		t.Errorf("after Archive: %+v", info)
	}
	all, _ := r.host.List(ctx, false)
	if len(all) != 0 {
		t.Errorf("List without hidden: %v", all)
	}
	all, _ = r.host.List(ctx, true)
	if len(all) != 1 || all[0].ID != id {
		t.Errorf("List with hidden: %v", all)
	}
}

// TestPermissionPrompts: a Bash command the default mode asks about comes
// as a pending request with a notice; Allow once runs it, Always runs it
// and remembers the CLI's rule (the next turn asks nothing), Deny refuses
// it.
func TestPermissionPrompts(t *testing.T) {
	r := newRig(t, "needs-permission")
	ctx := context.Background()

	dir := project(t)
	id := session.ID("local___orch_perm_worker_always")
	if _, err := r.host.Start(ctx, session.StartOptions{Cwd: dir, Message: "Work on it.", ID: id, PermissionMode: "default"}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, r.host, id, time.Minute, "a permission prompt", pendingTool("Bash"))
	info, _ := r.host.Session(ctx, id)
	p := info.Pending[0]
	if !info.TurnRunning || p.SessionID != id || !strings.Contains(string(p.Input), "touch .baton-model-sim") || !strings.Contains(string(p.Suggestions), "addRules") ||
		!strings.HasPrefix(p.ToolUseID, "toolu_") {
		t.Fatalf("pending request: %+v", p)
	}
	all, _ := r.host.Pending(ctx)
	if len(all) != 1 || all[0].RequestID != p.RequestID {
		t.Errorf("Pending: %+v", all)
	}
	if err := r.host.RespondPermission(ctx, p.RequestID, session.AllowAlways, nil); err != nil {
		t.Fatal(err)
	}
	if err := r.host.RespondPermission(ctx, p.RequestID, session.AllowOnce, nil); err == nil {
		t.Error("answering the same request twice did not fail")
	}
	waitFor(t, r.host, id, time.Minute, "the turn after Always", turnDone(1))
	if _, err := os.Stat(filepath.Join(dir, ".baton-model-sim")); err != nil {
		t.Errorf("the allowed command did not run: %v", err)
	}
	local, err := os.ReadFile(filepath.Join(dir, ".claude", "settings.local.json"))
	if err != nil || !strings.Contains(string(local), "touch .baton-model-sim") {
		t.Errorf("Always did not remember the rule: %s %v", local, err)
	}
	if err := os.Remove(filepath.Join(dir, ".baton-model-sim")); err != nil {
		t.Fatal(err)
	}
	if err := r.host.Send(ctx, id, "Once more."); err != nil {
		t.Fatal(err)
	}
	sawPrompt := false
	waitFor(t, r.host, id, time.Minute, "the second turn", func(info session.Info, es []entry) bool {
		sawPrompt = sawPrompt || len(info.Pending) > 0
		return turnDone(2)(info, es)
	})
	if sawPrompt {
		t.Error("the remembered rule did not stop the second prompt")
	}
	if _, err := os.Stat(filepath.Join(dir, ".baton-model-sim")); err != nil {
		t.Errorf("the command did not run in the second turn: %v", err)
	}
	closeSession(t, r.host, id)

	// Once and Deny, each in a fresh folder.
	for _, d := range []session.PermissionDecision{session.AllowOnce, session.Deny} {
		dir := project(t)
		id := session.ID("local___orch_perm_worker_" + string(d))
		if _, err := r.host.Start(ctx, session.StartOptions{Cwd: dir, Message: "Work on it.", ID: id, PermissionMode: "default"}); err != nil {
			t.Fatal(err)
		}
		waitFor(t, r.host, id, time.Minute, "a permission prompt", pendingTool("Bash"))
		info, _ := r.host.Session(ctx, id)
		if err := r.host.RespondPermission(ctx, info.Pending[0].RequestID, d, nil); err != nil {
			t.Fatal(err)
		}
		waitFor(t, r.host, id, time.Minute, "the turn after "+string(d), turnDone(1))
		_, err := os.Stat(filepath.Join(dir, ".baton-model-sim"))
		if ran := err == nil; ran != (d == session.AllowOnce) {
			t.Errorf("%s: the command ran = %v", d, ran)
		}
		if _, err := os.Stat(filepath.Join(dir, ".claude", "settings.local.json")); err == nil {
			t.Errorf("%s wrote a permission rule", d)
		}
		if d == session.Deny {
			es := entries(t, r.host, id)
			if !strings.Contains(string(es[len(es)-1].raw), "not allowed") && !strings.Contains(allText(es), "denied") {
				t.Errorf("the model was not told of the refusal: %s", allText(es))
			}
		}
		closeSession(t, r.host, id)
	}
}

// TestAskUserQuestion: the CLI offers AskUserQuestion under the host
// permission channel; the call is a pending request answered with the
// answers in its input, and the model gets them.
func TestAskUserQuestion(t *testing.T) {
	r := newRig(t, "asks-question")
	ctx := context.Background()
	id := session.ID("local___orch_ask_worker_task_001")
	if _, err := r.host.Start(ctx, session.StartOptions{Cwd: project(t), Message: "Work on it.", ID: id, PermissionMode: "acceptEdits"}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, r.host, id, time.Minute, "the question", pendingTool("AskUserQuestion"))
	info, _ := r.host.Session(ctx, id)
	var in map[string]json.RawMessage
	if err := json.Unmarshal(info.Pending[0].Input, &in); err != nil || in["questions"] == nil {
		t.Fatalf("question input: %s", info.Pending[0].Input)
	}
	var qs []struct{ Question string }
	_ = json.Unmarshal(in["questions"], &qs)
	answers, _ := json.Marshal(map[string]string{qs[0].Question: "Backend"})
	in["answers"] = answers
	upd, _ := json.Marshal(in)
	if err := r.host.RespondPermission(ctx, info.Pending[0].RequestID, session.AllowOnce, upd); err != nil {
		t.Fatal(err)
	}
	waitFor(t, r.host, id, time.Minute, "the turn after the answer", turnDone(1))
	var toolResult string
	for _, e := range entries(t, r.host, id) {
		if e.Type == "user" && strings.Contains(string(e.Message.Content), "tool_result") && strings.Contains(string(e.Message.Content), "Backend") {
			toolResult = string(e.Message.Content)
		}
	}
	if toolResult == "" {
		t.Errorf("the answer did not reach the model: %s", allText(entries(t, r.host, id)))
	}
}

// TestInterrupt stops a slow turn: the CLI ends it with an error result at
// once and the session takes the next message.
func TestInterrupt(t *testing.T) {
	r := newRig(t, "slow")
	ctx := context.Background()
	id := session.ID("local___orch_int_worker_task_001")
	if _, err := r.host.Start(ctx, session.StartOptions{Cwd: project(t), Message: "Work slowly. [[sim:scenario=slow delay=400]]", ID: id, PermissionMode: "acceptEdits"}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, r.host, id, time.Minute, "the first assistant event", func(_ session.Info, es []entry) bool {
		for _, e := range es {
			if e.Type == "assistant" {
				return true
			}
		}
		return false
	})
	if err := r.host.Interrupt(ctx, id); err != nil {
		t.Fatal(err)
	}
	took := waitFor(t, r.host, id, 15*time.Second, "the interrupted turn's result", turnDone(1))
	res := results(entries(t, r.host, id))[0]
	if res.Subtype != "error_during_execution" || took > 5*time.Second {
		t.Errorf("after Interrupt: result %s after %s", res.Subtype, took)
	}
	info, _ := r.host.Session(ctx, id)
	if !info.Running {
		t.Error("the child ended with the interrupt")
	}
	if err := r.host.Send(ctx, id, "Say something. [[sim:scenario=happy]]"); err != nil {
		t.Fatal(err)
	}
	waitFor(t, r.host, id, time.Minute, "the next turn", turnDone(2))
}

// TestKilledChildIsNoticedAndResumed kills the CLI with SIGKILL in the
// middle of a turn: the turn ends at once with an error result (no
// timeout), and the next message resumes the same conversation with
// --resume in a new child.
func TestKilledChildIsNoticedAndResumed(t *testing.T) {
	r := newRig(t, "slow")
	ctx := context.Background()
	dir := project(t)
	id := session.ID("local___orch_kill_worker_task_001")
	if _, err := r.host.Start(ctx, session.StartOptions{Cwd: dir, Message: "Work slowly. [[sim:scenario=slow delay=400]]", ID: id, PermissionMode: "acceptEdits"}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, r.host, id, time.Minute, "the first assistant event", func(_ session.Info, es []entry) bool {
		return len(es) > 0 && es[len(es)-1].Type == "assistant"
	})
	pids := r.host.Running()
	if err := syscall.Kill(pids[0], syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	took := waitFor(t, r.host, id, 10*time.Second, "the killed turn's end", turnDone(1))
	res := results(entries(t, r.host, id))[0]
	if res.Subtype != "error_during_execution" || !strings.Contains(res.Result, "exited during the turn") || !strings.Contains(res.Result, "killed") {
		t.Errorf("result after SIGKILL: %+v", res)
	}
	if took > 2*time.Second {
		t.Errorf("the exit was noticed after %s", took)
	}
	info, _ := r.host.Session(ctx, id)
	if info.Running || info.TurnRunning {
		t.Errorf("after the kill: %+v", info)
	}
	if err := r.host.Send(ctx, id, "Go on. [[sim:scenario=happy]]"); err != nil {
		t.Fatal(err)
	}
	waitFor(t, r.host, id, time.Minute, "the resumed turn", turnDone(2))
	var inits []string
	for _, e := range entries(t, r.host, id) {
		if e.Type == "system" && e.Subtype == "init" {
			var ev struct {
				SessionID string `json:"session_id"`
			}
			_ = json.Unmarshal(e.raw, &ev)
			inits = append(inits, ev.SessionID)
		}
	}
	if len(inits) != 2 || inits[0] != uuidFor(id) || inits[1] != uuidFor(id) {
		t.Errorf("the resumed child is not the same conversation: %v", inits)
	}
	r.host.mu.Lock()
	spawns := r.host.sessions[id].spawns
	r.host.mu.Unlock()
	if spawns != 2 {
		t.Errorf("%d children ran the session, want 2 (the killed one and its resume)", spawns)
	}
	if got := results(entries(t, r.host, id)); got[1].IsError {
		t.Errorf("the resumed turn failed: %+v", got[1])
	}
}

// TestRestartGoesOn closes the host in the middle of a turn (as Baton's
// exit does) and opens a new one on the same state folder: the session is
// known with its entries, the cut turn has an error result, and the next
// message resumes the conversation.
func TestRestartGoesOn(t *testing.T) {
	r := newRig(t, "slow")
	ctx := context.Background()
	dir := project(t)
	id := session.ID("local___orch_restart_worker_task_001")
	if _, err := r.host.Start(ctx, session.StartOptions{Cwd: dir, Message: "Work slowly. [[sim:scenario=slow delay=400]]", ID: id, PermissionMode: "acceptEdits", Title: "restart me"}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, r.host, id, time.Minute, "the first assistant event", func(_ session.Info, es []entry) bool {
		return len(es) > 0 && es[len(es)-1].Type == "assistant"
	})
	before, _ := r.host.Read(ctx, id, session.Cursor{})
	closeAndCheck(t, r.host)

	h2 := r.open(Options{Path: r.host.Path(), BaseEnv: r.env, StateDir: r.state, Logger: quiet})
	info, err := h2.Session(ctx, id)
	if err != nil || info.Running || info.TurnRunning || info.Title != "restart me" || info.Cwd != dir {
		t.Fatalf("after the restart: %+v %v", info, err)
	}
	// What came after the old cursor (the turn went on until Close), then
	// the result that ends the cut turn.
	after, err := h2.Read(ctx, id, before.Next)
	if err != nil || after.Reset || len(after.Entries) == 0 {
		t.Fatalf("read after the restart from the old cursor: reset %v, %d entries, %v", after.Reset, len(after.Entries), err)
	}
	var res entry
	last := after.Entries[len(after.Entries)-1]
	_ = json.Unmarshal(last, &res)
	if res.Type != "result" || res.Subtype != "error_during_execution" || !strings.Contains(res.Result, "Baton stopped") {
		t.Errorf("the cut turn ends with %s", last)
	}
	if n := len(results(entries(t, h2, id))); n != 1 {
		t.Errorf("%d results after the restart, want the one that ends the cut turn", n)
	}
	if err := h2.Send(ctx, id, "Go on. [[sim:scenario=happy]]"); err != nil {
		t.Fatal(err)
	}
	waitFor(t, h2, id, time.Minute, "the resumed turn", turnDone(2))
	// A third host sees the whole story, and nothing more is added.
	closeAndCheck(t, h2)
	h3 := r.open(Options{Path: r.host.Path(), BaseEnv: r.env, StateDir: r.state, Logger: quiet})
	b3, err := h3.Read(ctx, id, session.Cursor{})
	if err != nil {
		t.Fatal(err)
	}
	b2len := len(entries(t, h2, id))
	if b3.Total != b2len {
		t.Errorf("a third host reads %d entries, the second had %d", b3.Total, b2len)
	}
}

// TestStartFailureSaysWhy: a child that exits at once fails Start with
// the CLI's own words.
func TestStartFailureSaysWhy(t *testing.T) {
	r := newRig(t, "happy")
	_, err := r.host.Start(context.Background(), session.StartOptions{Cwd: project(t), Message: "hi", PermissionMode: "no-such-mode"})
	if err == nil || !strings.Contains(err.Error(), "no-such-mode") {
		t.Errorf("Start with a bad mode: %v", err)
	}
	if _, err := r.host.Start(context.Background(), session.StartOptions{Cwd: filepath.Join(t.TempDir(), "gone"), Message: "hi"}); err == nil {
		t.Error("Start in a missing folder did not fail")
	}
}

func closeSession(t *testing.T, h *Host, id session.ID) {
	t.Helper()
	if err := h.Archive(context.Background(), id); err != nil {
		t.Fatal(err)
	}
}

func allText(es []entry) string {
	var b strings.Builder
	for _, e := range es {
		b.Write(e.raw)
		b.WriteByte('\n')
	}
	return b.String()
}
