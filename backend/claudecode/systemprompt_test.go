//go:build unix

package claudecode

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/baton-app/baton/backend/session"
)

// lockedBuffer is a bytes.Buffer safe for the model-sim's writes.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// modelRequests are the Messages API requests model-sim logged.
func modelRequests(t *testing.T, log string) []struct{ System, Messages string } {
	t.Helper()
	var out []struct{ System, Messages string }
	for line := range strings.SplitSeq(strings.TrimSpace(log), "\n") {
		var ex struct {
			Path    string `json:"path"`
			Request struct {
				System   json.RawMessage `json:"system"`
				Messages json.RawMessage `json:"messages"`
			} `json:"request"`
		}
		if err := json.Unmarshal([]byte(line), &ex); err != nil {
			t.Fatalf("model-sim log line: %v: %s", err, line)
		}
		if strings.HasPrefix(ex.Path, "/v1/messages") && !strings.Contains(ex.Path, "count_tokens") {
			out = append(out, struct{ System, Messages string }{string(ex.Request.System), string(ex.Request.Messages)})
		}
	}
	return out
}

// TestSystemPromptReachesTheModel: a session's SystemPrompt goes to the
// real CLI with --append-system-prompt, so the model sees it in the
// request's system field and not in the user's message, also after the
// session's child ended and the next message resumed it.
func TestSystemPromptReachesTheModel(t *testing.T) {
	var log lockedBuffer
	r := newLoggedRig(t, "happy", &log)
	h := r.host
	if !session.TakesSystemPrompt(h) {
		t.Fatal("the Claude Code host does not take a system prompt")
	}

	const system = "You are worker SYSPROMPTMARKER7 of a team."
	ctx := context.Background()
	id := session.ID("local___orch_sys_worker_task_001")
	if _, err := h.Start(ctx, session.StartOptions{Cwd: project(t), Message: "Look at this project FIRSTMSG.", ID: id,
		PermissionMode: "acceptEdits", SystemPrompt: system}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, h, id, time.Minute, "first turn", turnDone(1))
	if err := h.Stop(ctx, id); err != nil {
		t.Fatal(err)
	}
	if err := h.Send(ctx, id, "Say something SECONDMSG. [[sim:scenario=happy]]"); err != nil {
		t.Fatal(err)
	}
	waitFor(t, h, id, time.Minute, "the resumed turn", turnDone(2))
	if n := strings.Count(allText(entries(t, h, id)), `"subtype":"init"`); n != 2 {
		t.Errorf("%d children ran the session, want 2 (the first and its resume)", n)
	}

	first, second := 0, 0
	for _, req := range modelRequests(t, log.String()) {
		if !strings.Contains(req.Messages, "FIRSTMSG") {
			continue
		}
		if strings.Contains(req.Messages, "SYSPROMPTMARKER7") {
			t.Errorf("the system prompt is in the messages: %s", req.Messages)
		}
		if !strings.Contains(req.System, "SYSPROMPTMARKER7") {
			t.Errorf("a request of the session lacks the system prompt in its system field: %.300s", req.System)
			continue
		}
		first++
		if strings.Contains(req.Messages, "SECONDMSG") {
			second++
		}
	}
	if first == 0 || second == 0 {
		t.Errorf("requests with the system prompt: %d in all, %d after the resume; want some of each", first, second)
	}
}

// TestTemplateSystemPromptsThroughTheEngine: on a run of a system template
// through the engine and the real CLI, the model sees each worker's
// template system prompt, and the main session's (the analysis phase's),
// in the request's system field and not in the messages; the later
// phases' system texts stay in their messages.
func TestTemplateSystemPromptsThroughTheEngine(t *testing.T) {
	var log lockedBuffer
	r := newLoggedRig(t, "happy", &log)
	tmpl := systemTemplate(t, "documentation")
	tmpl.Config.MaxWorkers = 2
	snap, _ := runEngine(t, r.host, tmpl, docsProject(t), "Document this project", allowAll(t, r.host))
	if snap.Run.Status != "completed" {
		t.Fatalf("run %s: %s", snap.Run.Status, snap.Run.Error)
	}
	lead, worker := mark(tmpl.Prompts.Analysis.System), mark(tmpl.Prompts.WorkerExecution.System)
	if lead == "" || worker == "" || lead == worker {
		t.Fatalf("the template's system prompts: %q, %q", lead, worker)
	}
	workers, mains := 0, 0
	for _, req := range modelRequests(t, log.String()) {
		switch {
		case strings.Contains(req.Messages, workerPromptHeading):
			workers++
			if !strings.Contains(req.System, worker) || strings.Contains(req.Messages, worker) {
				t.Errorf("a worker's request: system prompt in system %v, in the messages %v", strings.Contains(req.System, worker), strings.Contains(req.Messages, worker))
			}
		case strings.Contains(req.Messages, "Document this project") && strings.Contains(req.System, lead):
			mains++
			if strings.Contains(req.Messages, lead) {
				t.Error("the main session's system prompt is also in its messages")
			}
		}
	}
	if workers == 0 || mains == 0 {
		t.Errorf("requests with the system prompt apart: %d of workers, %d of the main session", workers, mains)
	}
}

// workerPromptHeading starts every worker's prompt (the templates' worker
// prompt) and no main session's.
const workerPromptHeading = "## Your task:"

// mark is a part of a system prompt to look for in JSON text: its first
// sentence without quotes.
func mark(system string) string {
	s, _, _ := strings.Cut(system, ".")
	if strings.ContainsAny(s, "\"\\\n") {
		return ""
	}
	return s
}
