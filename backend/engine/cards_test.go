package engine

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/baton-app/baton/backend/session"
	"github.com/baton-app/baton/backend/store"
)

// toolResult adds the result of tool call id (the user entry the agent's
// runtime writes when the tool ends).
func (s *fakeSession) toolResult(id string) {
	s.add(map[string]any{"type": "user", "uuid": fmt.Sprintf("u%d", len(s.entries)),
		"message": map[string]any{"role": "user", "content": []any{
			map[string]any{"type": "tool_result", "tool_use_id": id, "content": "ok"}}}})
}

// lastToolID is the id of the session's last tool call (fakeSession.tool).
func (s *fakeSession) lastToolID() string { return fmt.Sprintf("t%d", s.n) }

// A worker card follows the events: the tool call that waits for
// permission is the running tool, the answer makes the card say that the
// tool runs (not that it waits), its result clears it, and a tool call that
// comes alone (no text) is sent as progress at once.
func TestWorkerCardFollowsToolsAndAnswers(t *testing.T) {
	t.Parallel()
	tasks := plan(planned{"a", 5, nil})
	h := newHarness(t, testTemplate(nil), scripted(tasks, func(h *fakeHost, s *fakeSession, task string, _ bool) bool {
		s.tool("Bash", map[string]any{"command": "go test ./...", "description": "Run the tests"})
		s.pending = []session.PermissionRequest{{RequestID: "req1", ToolName: "Bash", Input: []byte(`{"command":"go test ./..."}`)}}
		return true
	}), true)
	id := h.create()
	ctx := context.Background()
	if err := h.eng.Start(ctx, id); err != nil {
		t.Fatal(err)
	}
	h.until("worker waiting", func() bool { return h.rec.count(EventWorkerWaiting) > 0 })
	w := h.workers(id)["a"]
	if w.Waiting == nil || w.CurrentAction != "waiting for permission to use Bash" {
		t.Fatalf("waiting worker = %+v", w)
	}
	run := w.Tools.Running
	if run == nil || run.Name != "Bash" || run.Input != "go test ./..." || run.StartedAt.IsZero() {
		t.Fatalf("running tool while waiting = %+v", run)
	}

	// Allow once: the tool runs (no entry comes while it does).
	if err := h.eng.RespondPermission(ctx, id, "a", session.AllowOnce, nil); err != nil {
		t.Fatal(err)
	}
	w = h.workers(id)["a"]
	if w.Waiting != nil || w.CurrentAction != "Bash go test ./..." {
		t.Fatalf("after Allow once the card says %q (waiting %v), want the running tool", w.CurrentAction, w.Waiting)
	}
	if w.Tools.Running == nil || !w.Tools.Running.StartedAt.Equal(run.StartedAt) {
		t.Fatalf("the running tool's clock restarted at the answer: %+v, want started at %v", w.Tools.Running, run.StartedAt)
	}

	// The tool's result ends it; a new call alone is progress at once.
	sid := session.ID(w.SessionID)
	h.host.mu.Lock()
	s := h.host.sessions[sid]
	s.toolResult(s.lastToolID())
	s.tool("Read", map[string]any{"file_path": h.dir + "/README.md"})
	h.host.mu.Unlock()
	h.host.notify(sid, session.NoticeMessage)
	h.untilf(func() string { return fmt.Sprintf("the Read call on the card: %+v", h.workers(id)["a"]) }, func() bool {
		w := h.workers(id)["a"]
		return w.Tools.Running != nil && w.Tools.Running.Name == "Read" && w.CurrentAction == "Read README.md"
	})
	if !progressCarries(h.rec, id, "a", func(w store.Worker) bool { return w.Tools.Running != nil && w.Tools.Running.Name == "Read" }) {
		t.Error("no worker:progress event carried the Read call")
	}

	h.host.mu.Lock()
	s.toolResult(s.lastToolID())
	h.host.mu.Unlock()
	h.host.notify(sid, session.NoticeMessage)
	h.until("the tool's result clears it", func() bool { return h.workers(id)["a"].Tools.Running == nil })
	h.host.finishTurn(sid, block("completion", map[string]any{"task_id": "a", "status": "success"}))
	if run := h.wait(id); run.Status != "completed" {
		t.Errorf("run = %s", run.Status)
	}
}

// A denied tool is named on the card until the worker goes on.
func TestWorkerCardAfterDeny(t *testing.T) {
	t.Parallel()
	tasks := plan(planned{"a", 5, nil})
	h := newHarness(t, testTemplate(nil), scripted(tasks, func(h *fakeHost, s *fakeSession, task string, _ bool) bool {
		s.tool("Bash", map[string]any{"command": "rm -rf build"})
		s.pending = []session.PermissionRequest{{RequestID: "req1", ToolName: "Bash", Input: []byte(`{"command":"rm -rf build"}`)}}
		return true
	}), true)
	id := h.create()
	ctx := context.Background()
	if err := h.eng.Start(ctx, id); err != nil {
		t.Fatal(err)
	}
	h.until("worker waiting", func() bool { return h.rec.count(EventWorkerWaiting) > 0 })
	if err := h.eng.RespondPermission(ctx, id, "a", session.Deny, nil); err != nil {
		t.Fatal(err)
	}
	w := h.workers(id)["a"]
	if w.Waiting != nil || !strings.HasPrefix(w.CurrentAction, "denied Bash") {
		t.Fatalf("after Deny the card says %q", w.CurrentAction)
	}
	h.host.finishTurn(session.ID(w.SessionID), block("completion", map[string]any{"task_id": "a", "status": "success"}))
	h.wait(id)
}

// progressCarries reports whether a worker:progress event of the only run
// runID carried task's worker in a state ok accepts.
func progressCarries(r *recorder, runID, task string, ok func(store.Worker) bool) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	for i, p := range r.byRun[runID] {
		if r.names[i] != EventWorkerProgress {
			continue
		}
		for _, w := range p.Workers {
			if w.TaskID == task && ok(w) {
				return true
			}
		}
	}
	return false
}
