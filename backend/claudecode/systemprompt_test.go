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

	"github.com/baton-app/baton/backend/claudecodetest"
	"github.com/baton-app/baton/backend/engine"
	"github.com/baton-app/baton/backend/modelsim"
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
	bin := claudecodetest.Binary(t)
	var log lockedBuffer
	sim, err := modelsim.New(modelsim.Options{Logger: quiet, Log: &log})
	if err != nil {
		t.Fatal(err)
	}
	if err := sim.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = sim.Shutdown(ctx)
	})
	home, state := t.TempDir(), t.TempDir()
	env := claudecodetest.Env(home, sim.URL(), append(goEnv(t), "CLAUDE_CODE_MAX_RETRIES=1")...)
	r := &rig{t: t, sim: sim, home: home, state: state, env: env}
	h := r.open(Options{Path: bin, BaseEnv: env, StateDir: state, Logger: quiet, StopGrace: 2 * time.Second})
	if !engine.TakesSystemPrompt(h) {
		t.Fatal("the Claude Code host does not take a system prompt")
	}

	const system = "You are worker SYSPROMPTMARKER7 of a team."
	ctx := context.Background()
	id := engine.SessionID("local___orch_sys_worker_task_001")
	if _, err := h.Start(ctx, engine.StartOptions{Cwd: project(t), Message: "Look at this project FIRSTMSG.", ID: id,
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
