package runstatus

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/baton-app/baton/backend/store"
)

func TestStatusNamesMatchTheStore(t *testing.T) {
	t.Parallel()
	for _, s := range Runs() {
		if !store.ValidRunStatus(s.String()) {
			t.Errorf("store refuses run status %s", s)
		}
		if p, err := ParseRun(s.String()); err != nil || p != s {
			t.Errorf("ParseRun(%s) = %v, %v", s, p, err)
		}
	}
	for _, s := range Workers() {
		if !store.ValidWorkerStatus(s.String()) {
			t.Errorf("store refuses worker status %s", s)
		}
		if p, err := ParseWorker(s.String()); err != nil || p != s {
			t.Errorf("ParseWorker(%s) = %v, %v", s, p, err)
		}
	}
	if _, err := ParseRun("flying"); err == nil {
		t.Error("ParseRun accepted flying")
	}
	if Run(99).String() != "RunStatus(99)" || Worker(99).String() != "WorkerStatus(99)" {
		t.Error("String of an unknown value")
	}
}

func TestRunTransitions(t *testing.T) {
	t.Parallel()
	legal := map[string]bool{}
	for _, pair := range []string{
		"created>analyzing", "created>planning", "analyzing>planning", "planning>confirming",
		"confirming>spawning", "spawning>running", "spawning>aggregating", "spawning>verifying",
		"spawning>completed", "running>aggregating", "running>verifying", "running>completed",
		"aggregating>verifying", "aggregating>completed", "verifying>completed", "verifying>running",
		// The outcomes other than completed are reached from where completed is.
		"spawning>completed_with_issues", "running>completed_with_issues", "aggregating>completed_with_issues",
		"verifying>completed_with_issues", "spawning>failed", "running>failed", "aggregating>failed", "verifying>failed",
	} {
		legal[pair] = true
	}
	for _, from := range Runs() {
		for _, to := range Runs() {
			want := legal[from.String()+">"+to.String()]
			switch {
			case from.Finished():
				want = false
			case to == RunCancelled || to == RunError:
				want = true
			case to == RunPaused || to == RunInterrupted:
				// a held run (paused or interrupted) is held already
				want = from != RunPaused && from != RunInterrupted
			case from == RunPaused || from == RunInterrupted:
				want = to != RunCreated && !to.Finished() && to != RunPaused && to != RunInterrupted
			}
			if got := from.CanMove(to); got != want {
				t.Errorf("%s → %s: CanMove = %v, want %v", from, to, got, want)
			}
		}
	}
	err := IllegalRun(RunCompleted, RunPaused)
	if !errors.Is(err, ErrIllegalTransition) || !strings.Contains(err.Error(), "run is completed") {
		t.Errorf("illegal transition error = %v", err)
	}
}

func TestWorkerTransitions(t *testing.T) {
	t.Parallel()
	tests := []struct {
		from, to Worker
		want     bool
	}{
		{WorkerPending, WorkerSpawning, true},
		{WorkerPending, WorkerRunning, false},
		{WorkerSpawning, WorkerRunning, true},
		{WorkerRunning, WorkerCompleted, true},
		{WorkerRunning, WorkerTimeout, true},
		{WorkerRunning, WorkerAwaitingReview, true},
		{WorkerTimeout, WorkerPending, true},
		{WorkerTimeout, WorkerFailed, true},
		{WorkerFailed, WorkerPending, true},
		{WorkerFailed, WorkerRunning, false},
		{WorkerCompleted, WorkerPending, false},
		{WorkerCompleted, WorkerFailed, false},
		{WorkerAwaitingReview, WorkerRejected, true},
		{WorkerAwaitingReview, WorkerCompleted, true},
		{WorkerRejected, WorkerPending, true},
		{WorkerPaused, WorkerRunning, true},
		{WorkerCancelled, WorkerPending, true},
		{WorkerCancelled, WorkerRunning, false},
	}
	for _, tc := range tests {
		if got := tc.from.CanMove(tc.to); got != tc.want {
			t.Errorf("%s → %s: CanMove = %v, want %v", tc.from, tc.to, got, tc.want)
		}
	}
	err := IllegalWorker("task_001", WorkerCompleted, WorkerFailed)
	if !errors.Is(err, ErrIllegalTransition) || !strings.Contains(err.Error(), "worker task_001 is completed") {
		t.Errorf("error = %v", err)
	}
}

func TestStatusJSON(t *testing.T) {
	t.Parallel()
	b, err := json.Marshal(map[string]any{"run": RunAggregating, "worker": WorkerAwaitingReview})
	if err != nil || string(b) != `{"run":"aggregating","worker":"awaiting_review"}` {
		t.Fatalf("Marshal = %s, %v", b, err)
	}
	var v struct {
		Run    Run    `json:"run"`
		Worker Worker `json:"worker"`
	}
	if err := json.Unmarshal(b, &v); err != nil || v.Run != RunAggregating || v.Worker != WorkerAwaitingReview {
		t.Errorf("Unmarshal = %+v, %v", v, err)
	}
	if err := json.Unmarshal([]byte(`{"run":"sleeping"}`), &v); err == nil {
		t.Error("an unknown status was accepted")
	}
}

// The constants name the store's statuses in order (the names are defined
// once, by the store).
func TestStatusConstantsNameTheirStatus(t *testing.T) {
	t.Parallel()
	if RunCreated.String() != "created" || RunVerifying.String() != "verifying" || RunPaused.String() != "paused" ||
		RunError.String() != "error" || RunInterrupted.String() != "interrupted" || RunCompletedWithIssues.String() != "completed_with_issues" ||
		RunFailed.String() != "failed" || len(Runs()) != 15 {
		t.Errorf("run statuses %v", Runs())
	}
	if WorkerPending.String() != "pending" || WorkerAwaitingReview.String() != "awaiting_review" ||
		WorkerRejected.String() != "rejected" || len(Workers()) != 10 {
		t.Errorf("worker statuses %v", Workers())
	}
	for _, s := range Runs() {
		if s.Finished() != (s == RunCompleted || s == RunCancelled || s == RunError || s == RunCompletedWithIssues || s == RunFailed) {
			t.Errorf("%s: Finished = %v", s, s.Finished())
		}
		if s.Outcome() != (s == RunCompleted || s == RunCompletedWithIssues || s == RunFailed) {
			t.Errorf("%s: Outcome = %v", s, s.Outcome())
		}
	}
}
