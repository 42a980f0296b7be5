package engine

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/baton-app/baton/backend/outputs"
	"github.com/baton-app/baton/backend/protocol"
	"github.com/baton-app/baton/backend/runstatus"
	"github.com/baton-app/baton/backend/store"
)

func TestStatusNamesMatchTheStore(t *testing.T) {
	t.Parallel()
	for _, s := range runstatus.Runs() {
		if !store.ValidRunStatus(s.String()) {
			t.Errorf("store refuses run status %s", s)
		}
		if p, err := runstatus.ParseRun(s.String()); err != nil || p != s {
			t.Errorf("runstatus.ParseRun(%s) = %v, %v", s, p, err)
		}
	}
	for _, s := range runstatus.Workers() {
		if !store.ValidWorkerStatus(s.String()) {
			t.Errorf("store refuses worker status %s", s)
		}
		if p, err := runstatus.ParseWorker(s.String()); err != nil || p != s {
			t.Errorf("runstatus.ParseWorker(%s) = %v, %v", s, p, err)
		}
	}
	if _, err := runstatus.ParseRun("flying"); err == nil {
		t.Error("ParseRunStatus accepted flying")
	}
	if RunStatus(99).String() != "RunStatus(99)" || WorkerStatus(99).String() != "WorkerStatus(99)" {
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
	for _, from := range runstatus.Runs() {
		for _, to := range runstatus.Runs() {
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
	err := runstatus.IllegalRun(RunCompleted, RunPaused)
	if !errors.Is(err, ErrIllegalTransition) || !strings.Contains(err.Error(), "run is completed") {
		t.Errorf("illegal transition error = %v", err)
	}
}

func TestWorkerTransitions(t *testing.T) {
	t.Parallel()
	tests := []struct {
		from, to WorkerStatus
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
	err := illegalWorker("task_001", WorkerCompleted, WorkerFailed)
	if !errors.Is(err, ErrIllegalTransition) || !strings.Contains(err.Error(), "worker task_001 is completed") {
		t.Errorf("error = %v", err)
	}
}

func TestModifications(t *testing.T) {
	t.Parallel()
	base := []store.Task{{ID: "a", Title: "A", Description: "a", Priority: 5}, {ID: "b", Title: "B", Description: "b", Priority: 5}}
	deps := []string{"a"}
	p := 8
	out, err := Modifications{Skip: []string{"a"}, Edit: []TaskEdit{{ID: "b", Dependencies: &deps, Priority: &p}},
		Add: []NewTask{{ID: "c", Title: "C", Description: "c"}}}.Apply("r", base)
	if err != nil {
		t.Fatal(err)
	}
	if !out[0].Skipped || out[1].Priority != 8 || out[1].Dependencies[0] != "a" || out[2].Priority != DefaultPriority {
		t.Errorf("Apply = %+v", out)
	}
	if base[0].Skipped || base[1].Priority != 5 {
		t.Error("Apply changed its input")
	}
	_, err = Modifications{Skip: []string{"zz"}, Add: []NewTask{{ID: "a"}}}.Apply("r", base)
	if !errors.Is(err, ErrInvalidTasks) || !strings.Contains(err.Error(), "cannot skip zz") || !strings.Contains(err.Error(), "cannot add a") {
		t.Errorf("Apply of bad modifications = %v", err)
	}
}

func TestStatusJSON(t *testing.T) {
	t.Parallel()
	b, err := json.Marshal(map[string]any{"run": RunAggregating, "worker": WorkerAwaitingReview})
	if err != nil || string(b) != `{"run":"aggregating","worker":"awaiting_review"}` {
		t.Fatalf("Marshal = %s, %v", b, err)
	}
	var v struct {
		Run    RunStatus    `json:"run"`
		Worker WorkerStatus `json:"worker"`
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
		RunFailed.String() != "failed" || len(runstatus.Runs()) != 15 {
		t.Errorf("run statuses %v", runstatus.Runs())
	}
	if WorkerPending.String() != "pending" || WorkerAwaitingReview.String() != "awaiting_review" ||
		WorkerRejected.String() != "rejected" || len(runstatus.Workers()) != 10 {
		t.Errorf("worker statuses %v", runstatus.Workers())
	}
	for _, s := range runstatus.Runs() {
		if s.Finished() != (s == RunCompleted || s == RunCancelled || s == RunError || s == RunCompletedWithIssues || s == RunFailed) {
			t.Errorf("%s: Finished = %v", s, s.Finished())
		}
		if s.Outcome() != (s == RunCompleted || s == RunCompletedWithIssues || s == RunFailed) {
			t.Errorf("%s: Outcome = %v", s, s.Outcome())
		}
	}
}

func TestClipCutsByCharacter(t *testing.T) {
	t.Parallel()
	s := strings.Repeat("ü", 10)
	if got := clip(s, 10); got != s {
		t.Errorf("clip at its length = %q", got)
	}
	if got := clip(s, 8); got != "üüüüü..." {
		t.Errorf("clip = %q", got)
	}
	if got := lastRunes("aéb€", 2); got != "b€" {
		t.Errorf("lastRunes = %q", got)
	}
	if got := clip("aéb€xyz", 5); got != "aé..." {
		t.Errorf("clip = %q", got)
	}
}

// A task the user rewrote keeps none of the planner's outputs for the old
// task, so Baton never asks its worker for them; a new title alone keeps
// them.
func TestEditedTaskDropsThePlannersOutputs(t *testing.T) {
	t.Parallel()
	def := `{"id":"a","title":"Write the overview","description":"Write docs/overview.md","scope":["."],"expected_outputs":["docs/overview.md"],"acceptance_criteria":["docs/overview.md exists"],"complexity":"low"}`
	base := []store.Task{{ID: "a", Title: "Write the overview", Description: "Write docs/overview.md", Scope: []string{"."}, Definition: json.RawMessage(def)}}
	desc, scope, title := "Write docs/store.md", []string{"store"}, "Document the store"
	out, err := Modifications{Edit: []TaskEdit{{ID: "a", Title: &title, Description: &desc, Scope: &scope}}}.Apply("r", base)
	if err != nil {
		t.Fatal(err)
	}
	if got := outputs.Planned(&out[0]); len(got) != 0 {
		t.Errorf("planned outputs after the rewrite = %v, want none", got)
	}
	var d protocol.Task
	if err := json.Unmarshal(out[0].Definition, &d); err != nil || d.Description != desc || d.Title != title || d.Scope[0] != "store" ||
		d.Complexity != "low" || len(d.AcceptanceCriteria) != 0 {
		t.Errorf("definition after the rewrite = %s (%v)", out[0].Definition, err)
	}
	out, err = Modifications{Edit: []TaskEdit{{ID: "a", Title: &title}}}.Apply("r", base)
	if err != nil {
		t.Fatal(err)
	}
	if got := outputs.Planned(&out[0]); len(got) != 1 || got[0] != "docs/overview.md" {
		t.Errorf("planned outputs after a new title = %v, want docs/overview.md", got)
	}
	if string(base[0].Definition) != def {
		t.Error("Apply changed its input")
	}
}
