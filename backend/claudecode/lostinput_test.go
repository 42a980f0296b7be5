//go:build unix

package claudecode

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/baton-app/baton/backend/session"
)

// TestInputTheCLINeverRecordedIsSentAgain: Baton sent a session its first
// message and was killed before the CLI wrote it to its transcript. After
// the restart the session's next child starts a new conversation, and it
// gets the lost message before the new one, so a worker cut at its start
// still learns its task.
func TestInputTheCLINeverRecordedIsSentAgain(t *testing.T) {
	r := newRig(t, "happy")
	closeAndCheck(t, r.host)
	ctx := context.Background()
	dir := project(t)
	id := session.ID("local___orch_lost_worker_task_002")
	u := uuidFor(id)
	m, _ := json.Marshal(meta{ID: id, UUID: u, Cwd: dir, PermissionMode: "acceptEdits", CreatedAt: time.Now()})
	if err := os.WriteFile(filepath.Join(r.state, u+".json"), m, 0o600); err != nil {
		t.Fatal(err)
	}
	lost, _ := json.Marshal(map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": "Your task is ZX-417: read the README."},
		"session_id": u, "uuid": newUUID(), batonInput: true})
	if err := os.WriteFile(filepath.Join(r.state, u+".jsonl"), append(lost, '\n'), 0o600); err != nil {
		t.Fatal(err)
	}

	h := r.open(Options{Path: r.host.Path(), BaseEnv: r.env, StateDir: r.state, Logger: quiet})
	if err := h.Send(ctx, id, "Reply again with your report."); err != nil {
		t.Fatal(err)
	}
	waitFor(t, h, id, time.Minute, "the turn after the restart", turnDone(2))
	transcripts, _ := filepath.Glob(filepath.Join(r.home, ".claude", "projects", "*", u+".jsonl"))
	if len(transcripts) != 1 {
		t.Fatalf("the CLI's transcripts of %s: %v", u, transcripts)
	}
	b, err := os.ReadFile(transcripts[0])
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "ZX-417") || !strings.Contains(string(b), "Reply again with your report.") {
		t.Errorf("the new conversation lacks the lost message or the new one:\n%s", b)
	}
	// Baton's own record holds each message once, as Baton sent it.
	log, err := os.ReadFile(filepath.Join(r.state, u+".jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(log), "ZX-417"); n != 1 {
		t.Errorf("Baton's record holds the lost message %d times, want 1:\n%s", n, log)
	}
}
