package claude

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/baton-app/baton/backend/engine"
	"github.com/baton-app/baton/backend/session"
	"github.com/baton-app/baton/backend/simulator"
)

// isResult reports whether a decoded entry is a turn's result, top-level
// or wrapped in its message.
func isResult(e map[string]any) bool {
	if e["type"] == "result" {
		return true
	}
	m, _ := e["message"].(map[string]any)
	return m != nil && m["type"] == "result"
}

// waitResult waits until the session's transcript ends with a result.
func (e *env) waitResult(t testing.TB, id session.ID) []map[string]any {
	t.Helper()
	var entries []map[string]any
	e.waitSession(t, id, "done with its turn", func(session.Info) bool {
		entries = e.readAll(t, id)
		return len(entries) > 0 && isResult(entries[len(entries)-1])
	})
	return entries
}

// The app as it is reported: session objects without turnRunning and with
// ISO dates, results wrapped with camelCase fields, one message over
// several lines sharing message.id.
func TestShapesSessionObjectAndTranscript(t *testing.T) {
	t.Parallel()
	e := newEnv(t, simulator.Options{Shapes: simulator.Shapes{NoTurnRunning: true, ISODates: true, WrappedResults: true, SplitMessages: true}})
	ctx := testCtx(t)
	id, err := e.host.Start(ctx, session.StartOptions{Cwd: e.dir, Message: `answer with "phase": "analysis"`})
	if err != nil {
		t.Fatal(err)
	}
	entries := e.waitResult(t, id)
	si, err := e.host.Session(ctx, id)
	if err != nil {
		t.Fatalf("a session with ISO dates: %v", err)
	}
	if si.LastActivityAt.IsZero() || si.CreatedAt.IsZero() || time.Since(si.LastActivityAt) > time.Minute {
		t.Errorf("dates read as %v, %v", si.CreatedAt, si.LastActivityAt)
	}
	if !si.TurnUnknown || !si.Running {
		t.Errorf("no turnRunning: TurnUnknown %v, Running %v; want both true", si.TurnUnknown, si.Running)
	}
	list, err := e.host.List(ctx, false)
	if err != nil || len(list) != 1 {
		t.Fatalf("list of sessions with ISO dates: %v, %v", list, err)
	}
	last := entries[len(entries)-1]
	res := last["message"].(map[string]any)
	if _, ok := res["totalCostUsd"]; !ok || last["type"] != nil {
		t.Errorf("the result is not wrapped camelCase: %v", last)
	}
	ids := map[string]int{}
	for _, en := range entries {
		if m, ok := en["message"].(map[string]any); ok && en["type"] == "assistant" {
			ids[m["id"].(string)]++
		}
	}
	for mid, n := range ids {
		if n < 2 {
			t.Errorf("message %s has %d lines, want it split", mid, n)
		}
	}
}

// Raw events carry the CLI's session UUID: notices still name the app's
// session, and the turn's end comes as a result notice.
func TestShapesRawEventsRouted(t *testing.T) {
	t.Parallel()
	e := newEnv(t, simulator.Options{Shapes: simulator.Shapes{RawEvents: true, WrappedResults: true}})
	ctx := testCtx(t)
	id, err := e.host.Start(ctx, session.StartOptions{Cwd: e.dir, Message: "hello"})
	if err != nil {
		t.Fatal(err)
	}
	for {
		select {
		case n := <-e.host.Notices():
			if !strings.HasPrefix(string(n.SessionID), "local_") {
				t.Fatalf("a notice names %q, not the app's session", n.SessionID)
			}
			if n.SessionID == id && n.Kind == session.NoticeResult {
				entries := e.readAll(t, id)
				if cli, _ := entries[0]["sessionId"].(string); cli == "" || cli == string(id) {
					t.Fatalf("the entries carry sessionId %q: not the raw shape", cli)
				}
				return
			}
		case <-ctx.Done():
			t.Fatal("no result notice for the session")
		}
	}
}

// start sends useWorktree: false, so the app keeps the session in its
// folder; getTranscriptTail is used once a read has a cursor.
func TestShapesWorktreeAndTail(t *testing.T) {
	t.Parallel()
	// No entries in the notices: the reads go to the page, whose tail
	// read this checks.
	e := newEnvWith(t, simulator.Options{Shapes: simulator.Shapes{Worktrees: true, TranscriptTail: true}}, Options{MaxPushedEntry: -1})
	ctx := testCtx(t)
	if !e.host.Probe().Has("getTranscriptTail") {
		t.Fatal("the probe did not find getTranscriptTail")
	}
	id, err := e.host.Start(ctx, session.StartOptions{Cwd: e.dir, Message: "hello"})
	if err != nil {
		t.Fatal(err)
	}
	o, err := e.host.sessionObject(ctx, id)
	if err != nil || o == nil {
		t.Fatal(o, err)
	}
	if o.WorktreePath != "" {
		t.Errorf("the session was put in a worktree: %s", o.WorktreePath)
	}
	// With a worktree asked for, it is accepted.
	wt, err := e.host.Start(ctx, session.StartOptions{Cwd: e.dir, Message: "hello", UseWorktree: true})
	if err != nil {
		t.Fatal(err)
	}
	if o, _ := e.host.sessionObject(ctx, wt); o == nil || !strings.Contains(o.WorktreePath, ".claude/worktrees") {
		t.Errorf("asked for a worktree, got %+v", o)
	}

	e.waitIdle(t, id)
	calls := func() (full, tail int) {
		raw, err := e.host.link.conn.Call(ctx, `function () { return globalThis.__batonSimCalls; }`)
		if err != nil {
			t.Fatal(err)
		}
		var c struct{ GetTranscript, GetTranscriptTail int }
		if err := json.Unmarshal(raw, &c); err != nil {
			t.Fatal(err)
		}
		return c.GetTranscript, c.GetTranscriptTail
	}
	first, c := e.readFrom(t, id, session.Cursor{})
	full0, tail0 := calls()
	if err := e.host.Send(ctx, id, "and again"); err != nil {
		t.Fatal(err)
	}
	e.waitIdle(t, id)
	full1, tail1 := calls()
	more, _ := e.readFrom(t, id, c)
	full2, tail2 := calls()
	if tail2 <= tail1 || full2 != full1 {
		t.Errorf("a read after a cursor: %d whole reads, %d tail reads (before %d, %d); want the tail only", full2-full1, tail2-tail1, full1, tail1)
	}
	_, _ = full0, tail0
	all := e.readAll(t, id)
	if len(first)+len(more) != len(all) || len(more) == 0 || more[0]["uuid"] != all[len(first)]["uuid"] {
		t.Errorf("tail read: %d + %d entries, the whole transcript has %d", len(first), len(more), len(all))
	}
}

// A message sent while a turn runs waits in the app's queue: Send does not
// call it lost. setPermissionMode takes dontAsk and auto.
func TestShapesQueuedMessageAndModes(t *testing.T) {
	t.Parallel()
	e := newEnv(t, simulator.Options{Shapes: simulator.Shapes{QueuedMessages: true, NoTurnRunning: true}})
	e.host.opts.SendTimeout = 10 * time.Second
	ctx := testCtx(t)
	id, err := e.host.Start(ctx, session.StartOptions{Cwd: e.dir, Message: "[[sim:scenario=worker-hangs]] task_009: report completion"})
	if err != nil {
		t.Fatal(err)
	}
	e.waitSession(t, id, "working", func(session.Info) bool {
		for _, en := range e.readAll(t, id) {
			if en["type"] == "assistant" {
				return true
			}
		}
		return false
	})
	start := time.Now()
	if err := e.host.Send(ctx, id, "a second message"); err != nil {
		t.Fatalf("a queued message: %v", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("Send took %s for a queued message", d)
	}
	for _, en := range e.readAll(t, id) {
		if m, _ := en["message"].(map[string]any); m != nil && m["content"] == "a second message" {
			t.Fatal("the message is in the transcript: it was not queued, the test proves nothing")
		}
	}
	for _, mode := range []string{"dontAsk", "auto"} {
		if err := e.host.SetPermissionMode(ctx, id, mode); err != nil {
			t.Fatalf("mode %s: %v", mode, err)
		}
		if si, err := e.host.Session(ctx, id); err != nil || si.PermissionMode != mode {
			t.Errorf("mode %s: session says %q, %v", mode, si.PermissionMode, err)
		}
	}
	if err := e.host.Interrupt(ctx, id); err != nil {
		t.Fatal(err)
	}
}

// A retitled worker stays hidden: its id marks it.
func TestShapesRetitledWorkerStaysHidden(t *testing.T) {
	t.Parallel()
	e := newEnv(t, simulator.Options{Shapes: simulator.Shapes{Retitle: true}})
	ctx := testCtx(t)
	worker, _ := engine.WorkerSessionID("run1", "task_001")
	if _, err := e.host.Start(ctx, session.StartOptions{Cwd: e.dir, Message: "hello", ID: worker, Title: "__orch_ worker task_001"}); err != nil {
		t.Fatal(err)
	}
	si := e.waitSession(t, worker, "retitled", func(si session.Info) bool { return !strings.Contains(si.Title, "__orch_") })
	list, err := e.host.List(ctx, false)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range list {
		if s.ID == worker {
			t.Errorf("the retitled worker %q is listed", si.Title)
		}
	}
}

// An app that puts the session in a worktree anyway: Start refuses it with
// a sentence, and the session is stopped and archived.
func TestShapesWorktreeRefused(t *testing.T) {
	t.Parallel()
	e := newEnv(t, simulator.Options{Shapes: simulator.Shapes{WorktreesAlways: true}})
	ctx := testCtx(t)
	worker, _ := engine.WorkerSessionID("run1", "task_001")
	_, err := e.host.Start(ctx, session.StartOptions{Cwd: e.dir, Message: "hello", ID: worker})
	if !errors.Is(err, ErrWorktree) || !strings.Contains(err.Error(), ".claude/worktrees") || !strings.Contains(err.Error(), e.dir) {
		t.Fatalf("Start = %v, want ErrWorktree naming both folders", err)
	}
	si, err := e.host.Session(ctx, worker)
	if err != nil || si.Running || !si.Archived {
		t.Errorf("the refused session: running %v, archived %v, %v", si.Running, si.Archived, err)
	}
}
