package session

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func TestIsHidden(t *testing.T) {
	t.Parallel()
	tests := []struct {
		id    ID
		title string
		want  bool
	}{
		{"local_123", "Fix the build", false},
		{"local___orch_x_worker_y", "", true},
		{"local_123", "worker __orch_x", true},
		{"local_orch_", "orch", false},
	}
	for _, tt := range tests {
		if got := IsHidden(tt.id, tt.title); got != tt.want {
			t.Errorf("IsHidden(%q, %q) = %v, want %v", tt.id, tt.title, got, tt.want)
		}
	}
}

func TestPermissionDecisionValid(t *testing.T) {
	t.Parallel()
	for _, d := range []PermissionDecision{AllowOnce, AllowAlways, Deny} {
		if !d.Valid() {
			t.Errorf("%q.Valid() = false", d)
		}
	}
	if PermissionDecision("yes").Valid() {
		t.Error(`"yes".Valid() = true`)
	}
}

// canonicalEntry leaves other entries alone, byte for byte.
func TestCanonicalEntryLeavesOthers(t *testing.T) {
	t.Parallel()
	for _, s := range []string{
		`{"type":"assistant","message":{"content":[{"type":"text","text":"the result is"}]}}`,
		`{"type":"result","subtype":"success","is_error":false,"total_cost_usd":1}`,
		`{"type":"user","message":{"role":"user","content":"result"}}`,
	} {
		if got := string(CanonicalEntry([]byte(s))); got != s {
			t.Errorf("canonicalEntry(%s) = %s", s, got)
		}
	}
}

func TestToolSummaryStyles(t *testing.T) {
	t.Parallel()
	bash := json.RawMessage(`{"command":"go test\n  ./...","description":"Run the tests"}`)
	if got := ToolSummary("Bash", bash, ToolCard); got != "Bash Run the tests" {
		t.Errorf("card = %q", got)
	}
	if got := ToolSummary("Bash", bash, ToolLine); got != "Bash go test ./..." {
		t.Errorf("line = %q", got)
	}
	long := json.RawMessage(`{"file_path":"/p/` + strings.Repeat("é", 100) + `"}`)
	if got := ToolSummary("Read", long, ToolCard); got != "Read "+strings.Repeat("é", 77)+"..." {
		t.Errorf("long card = %q", got)
	}
}

func TestJoinPromptAndWithSystemPrompt(t *testing.T) {
	t.Parallel()
	if got := JoinPrompt("sys", "msg"); got != "sys\n\nmsg" {
		t.Errorf("JoinPrompt = %q", got)
	}
	if got := JoinPrompt("  ", "msg"); got != "msg" {
		t.Errorf("JoinPrompt with a blank system = %q", got)
	}
	got := WithSystemPrompt(StartOptions{Message: "do it", SystemPrompt: "you are a worker"})
	if got.Message != "you are a worker\n\ndo it" || got.SystemPrompt != "" {
		t.Errorf("WithSystemPrompt = %+v", got)
	}
	if got := WithSystemPrompt(StartOptions{Message: "do it"}); got.Message != "do it" {
		t.Errorf("WithSystemPrompt without a system prompt = %+v", got)
	}
}

func TestPermissionModes(t *testing.T) {
	t.Parallel()
	want := []string{"default", "acceptEdits", "plan", "bypassPermissions", "dontAsk", "auto"}
	if strings.Join(PermissionModes, ",") != strings.Join(want, ",") {
		t.Errorf("PermissionModes = %v, want the CLI's %v", PermissionModes, want)
	}
	for _, m := range want {
		if !ValidPermissionMode(m) {
			t.Errorf("ValidPermissionMode(%q) = false", m)
		}
	}
	for _, m := range []string{"", "Plan", "yolo"} {
		if ValidPermissionMode(m) {
			t.Errorf("ValidPermissionMode(%q) = true", m)
		}
	}
}

func TestLostError(t *testing.T) {
	t.Parallel()
	if LostError("") != ErrHostLost {
		t.Error("LostError without a reason is not ErrHostLost itself")
	}
	err := LostError("the page closed")
	if !errors.Is(err, ErrHostLost) || !strings.Contains(err.Error(), "the page closed") {
		t.Errorf("LostError = %v", err)
	}
}
