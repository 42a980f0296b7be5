package engine

import (
	"fmt"
	"testing"
	"time"

	"github.com/baton-app/baton/backend/session"
	"github.com/baton-app/baton/backend/template"
	"github.com/baton-app/baton/backend/transcript"
)

// A burst of "message" notices (an agent adding entries one by one) leads to
// a few reads of the session, not one per notice; whatever the burst added
// is still read, and the result is detected. The worker's session is
// archived by the time the run is reported finished.
func TestMessageNoticesAreCoalesced(t *testing.T) {
	t.Parallel()
	tasks := plan(planned{"task_001", 5, nil})
	var sid session.ID
	worker := func(h *fakeHost, s *fakeSession, task string, reprompt bool) bool {
		// The turn goes on: the test adds the entries.
		sid = s.id
		return true
	}
	tmpl := testTemplate(func(tp *template.Template) {
		// No polling in between: only notices lead to reads.
		tp.Config.PollInterval = 30
		tp.Phases.Aggregation.Enabled = false
	})
	h := newHarness(t, tmpl, scripted(tasks, worker), true)
	id := h.create()
	if err := h.eng.Start(t.Context(), id); err != nil {
		t.Fatal(err)
	}
	h.until("task_001 runs", func() bool { return h.workers(id)["task_001"].Status == "running" })
	h.host.mu.Lock()
	s := h.host.sessions[sid]
	before := h.host.reads[sid]
	h.host.mu.Unlock()

	const burst = 40
	start := time.Now()
	for i := range burst {
		h.host.mu.Lock()
		s.tool("Read", map[string]any{"file_path": fmt.Sprintf("/p/f%d.go", i)})
		h.host.mu.Unlock()
		h.host.notify(sid, session.NoticeMessage)
		time.Sleep(5 * time.Millisecond)
	}
	h.until("the burst is read", func() bool {
		h.host.mu.Lock()
		defer h.host.mu.Unlock()
		return h.host.readTo[sid] == len(s.entries)
	})
	h.host.mu.Lock()
	reads := h.host.reads[sid] - before
	h.host.mu.Unlock()
	// One read per transcript.MessageReadGap, plus the first and the last.
	if most := int(time.Since(start)/transcript.MessageReadGap) + 2; reads > most || reads >= burst {
		t.Errorf("%d notices led to %d reads in %s, want at most %d", burst, reads, time.Since(start).Round(time.Millisecond), most)
	}

	h.host.mu.Lock()
	s.say(block("completion", map[string]any{"task_id": "task_001", "status": "success", "summary": "Read everything"}))
	s.endTurn(h.host)
	h.host.mu.Unlock()
	h.host.notify(sid, session.NoticeResult)
	run := h.wait(id)
	if run.Status != "completed" {
		t.Fatalf("run = %s: %s", run.Status, run.Error)
	}
	w := h.workers(id)["task_001"]
	if w.Tools.Reads != burst {
		t.Errorf("tool reads = %d, want %d", w.Tools.Reads, burst)
	}
	h.host.mu.Lock()
	archived := s.archived
	h.host.mu.Unlock()
	if !archived {
		t.Error("the worker's session was not archived when the run was reported finished")
	}
}
