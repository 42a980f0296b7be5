package engine

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// refuse ends the session's turn the way the Claude Code host does for a
// CLI that refused to run: an error result with its own sentence, and no
// answer of the model.
func (s *fakeSession) refuse(h *fakeHost, sentence string) {
	s.add(map[string]any{"type": "result", "subtype": "error_during_execution", "is_error": true, "result": sentence,
		"uuid": fmt.Sprintf("r%d", len(s.entries))})
	if s.turnRunning && strings.Contains(string(s.id), "_worker_") {
		h.live--
	}
	s.turnRunning = false
}

// cut ends the turn the way the Claude Code host does when its process
// stopped in the middle (baton_cut).
func (s *fakeSession) cut(h *fakeHost) {
	s.add(map[string]any{"type": "result", "subtype": "error_during_execution", "is_error": false, "baton_cut": true,
		"result": "Baton stopped while this turn ran", "uuid": fmt.Sprintf("r%d", len(s.entries))})
	if s.turnRunning && strings.Contains(string(s.id), "_worker_") {
		h.live--
	}
	s.turnRunning = false
}

const refusal = "--dangerously-skip-permissions cannot be used with root/sudo privileges for security reasons"

// A worker whose CLI refused to run fails with the CLI's own sentence on
// its card, at once: not "no completion block", not asked again.
func TestWorkerShowsTheCLIsOwnError(t *testing.T) {
	t.Parallel()
	h := newHarness(t, testTemplate(nil), scripted(plan(planned{"a", 5, nil}), func(h *fakeHost, s *fakeSession, task string, _ bool) bool {
		if task == "a" {
			s.refuse(h, refusal)
			return true
		}
		return false
	}), true)
	id := h.create()
	if err := h.eng.Start(context.Background(), id); err != nil {
		t.Fatal(err)
	}
	h.wait(id)
	w := h.workers(id)["a"]
	if w.Status != "failed" || w.Error != "the session ended with an error: "+refusal {
		t.Fatalf("worker a is %s: %q", w.Status, w.Error)
	}
	if n := h.rec.count(EventWorkerReprompted); n != 0 {
		t.Errorf("asked again %d times", n)
	}
}

// A main session whose CLI refused to run ends the run in error with that
// sentence, not after re-prompts about a missing block.
func TestMainSessionShowsTheCLIsOwnError(t *testing.T) {
	t.Parallel()
	h := newHarness(t, testTemplate(nil), func(h *fakeHost, s *fakeSession, text string) {
		s.refuse(h, refusal)
	}, true)
	id := h.create()
	if err := h.eng.Start(context.Background(), id); err != nil {
		t.Fatal(err)
	}
	run := h.wait(id)
	if run.Status != "error" || run.Error != "the main session ended with an error: "+refusal {
		t.Fatalf("run %s: %q", run.Status, run.Error)
	}
	if n := h.rec.count(EventReprompted); n != 0 {
		t.Errorf("asked again %d times", n)
	}
}

// A worker whose turn was cut in the middle (its process stopped) goes on in
// the same session, told what it already did there, instead of being told
// its reply holds no report.
func TestCutWorkerGoesOnToldWhatItDid(t *testing.T) {
	t.Parallel()
	h := newHarness(t, testTemplate(nil), scripted(plan(planned{"a", 5, nil}), func(h *fakeHost, s *fakeSession, task string, again bool) bool {
		if task != "a" {
			return false
		}
		if !again {
			writeOutput(s.opts.Cwd, "docs/a.md", "# a")
			s.tool("Write", map[string]any{"file_path": s.opts.Cwd + "/docs/a.md", "content": "# a"})
			s.tool("Bash", map[string]any{"command": "go test ./..."})
			s.cut(h)
			return true
		}
		s.say(block("completion", map[string]any{"task_id": "a", "status": "success", "summary": "Did a", "output_files": []string{"docs/a.md"}}))
		s.endTurn(h)
		return true
	}), true)
	id := h.create()
	if err := h.eng.Start(context.Background(), id); err != nil {
		t.Fatal(err)
	}
	if run := h.wait(id); run.Status != "completed" {
		t.Fatalf("run %s: %s %s", run.Status, run.Message, run.Error)
	}
	h.host.mu.Lock()
	var goOn string
	for _, s := range h.host.sends {
		if strings.Contains(s, "stopped in the middle of your work") {
			goOn = s
		}
	}
	h.host.mu.Unlock()
	for _, want := range []string{"- Write ", "docs/a.md\n- Bash go test ./...\n", "do not do them again", "completion report"} {
		if !strings.Contains(goOn, want) {
			t.Errorf("the message to go on lacks %q:\n%s", want, goOn)
		}
	}
	if w := h.workers(id)["a"]; w.RetryCount != 0 || w.Status != "completed" {
		t.Errorf("worker a is %s after %d retries", w.Status, w.RetryCount)
	}
	if n := h.rec.count(EventWorkerReprompted); n != 0 {
		t.Errorf("%d re-prompts about the report", n)
	}
}
