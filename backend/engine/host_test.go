package engine

import (
	"errors"
	"testing"

	"github.com/baton-app/baton/backend/session"
)

func TestWorkerSessionID(t *testing.T) {
	t.Parallel()
	tests := []struct {
		orch, task string
		want       session.ID
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
			if !session.IsHidden(got, "") {
				t.Fatalf("IsHidden(%q) = false", got)
			}
		})
	}
}
