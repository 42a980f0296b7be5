package engine

import (
	"errors"
	"testing"
)

func TestWorkerSessionID(t *testing.T) {
	t.Parallel()
	tests := []struct {
		orch, task string
		want       SessionID
		err        bool
	}{
		{"abc123", "task_001", "local___orch_abc123_worker_task_001", false},
		{"run-7", "t1", "local___orch_run-7_worker_t1", false},
		// A run id has one "orch_" in the session id, not two.
		{"orch_9f3a", "task_001", "local___orch_9f3a_worker_task_001", false},
		{"", "task_001", "", true},
		{"abc", "../x", "", true},
		{"a b", "t", "", true},
		{"abc", "task__1", "", true},
		{"abc", "t\"1", "", true},
	}
	for _, tt := range tests {
		t.Run(tt.orch+"/"+tt.task, func(t *testing.T) {
			t.Parallel()
			got, err := WorkerSessionID(tt.orch, tt.task)
			if tt.err {
				if !errors.Is(err, ErrInvalidID) {
					t.Fatalf("WorkerSessionID(%q, %q) error = %v, want ErrInvalidID", tt.orch, tt.task, err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("WorkerSessionID(%q, %q) = %q, %v; want %q", tt.orch, tt.task, got, err, tt.want)
			}
			if !IsHidden(got, "") {
				t.Fatalf("IsHidden(%q) = false", got)
			}
		})
	}
}

func TestIsHidden(t *testing.T) {
	t.Parallel()
	tests := []struct {
		id    SessionID
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
