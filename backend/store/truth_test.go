package store

import (
	"context"
	"errors"
	"reflect"
	"testing"
	"time"
)

// A run keeps the host that served it; a host change (a move) is stored
// like any other change of the row.
func TestRunKeepsItsHost(t *testing.T) {
	t.Parallel()
	s, _ := openTest(t)
	ctx := context.Background()
	r := newRun("orch_host", time.Now())
	r.Host = RunHost{Kind: "claude-code", Label: "Claude Code (CLI)", Path: "/opt/claude", Version: "2.1.328",
		Description: "Claude Code CLI 2.1.328 (/opt/claude)"}
	if err := s.CreateRun(ctx, r); err != nil {
		t.Fatal(err)
	}
	got, err := s.Run(ctx, r.ID)
	if err != nil || got.Host != r.Host {
		t.Fatalf("host = %+v, %v; want %+v", got.Host, err, r.Host)
	}
	r.Host = RunHost{Kind: "simulator", Endpoint: "http://127.0.0.1:1"}
	if err := s.Commit(ctx, r.ID, Change{Run: &r}); err != nil {
		t.Fatal(err)
	}
	if got, _ = s.Run(ctx, r.ID); got.Host != r.Host {
		t.Errorf("host after the move = %+v; want %+v", got.Host, r.Host)
	}
	// A run stored before Baton kept hosts has the zero host.
	old := newRun("orch_old", time.Now())
	if err := s.CreateRun(ctx, old); err != nil {
		t.Fatal(err)
	}
	if got, _ = s.Run(ctx, old.ID); got.Host != (RunHost{}) {
		t.Errorf("a run without a host reads %+v", got.Host)
	}
}

// Check results are stored by round and position, read back in that
// order, replaced when a round runs again, and deleted with their run.
func TestCheckResults(t *testing.T) {
	t.Parallel()
	s, _ := openTest(t)
	ctx := context.Background()
	r := newRun("orch_checks", time.Now())
	if err := s.CreateRun(ctx, r); err != nil {
		t.Fatal(err)
	}
	base := []CheckResult{
		{Round: 0, Position: 0, Name: "go build", Command: "go build ./...", Status: "passed", DurationMS: 1200, Verdict: "baseline"},
		{Round: 0, Position: 1, Name: "go test", Command: "go test ./...", Status: "failed", ExitCode: 1, Tail: "FAIL x\n", Verdict: "baseline"},
	}
	after := []CheckResult{
		{Round: 1, Position: 1, Name: "go test", Command: "go test ./...", Status: "failed", ExitCode: 1, Verdict: "pre-existing"},
		{Round: 1, Position: 0, Name: "go build", Command: "go build ./...", Status: "failed", ExitCode: 2, Verdict: "broken", Tail: "x.go:1: syntax error"},
	}
	if err := s.Commit(ctx, r.ID, Change{Checks: base}); err != nil {
		t.Fatal(err)
	}
	if err := s.Commit(ctx, r.ID, Change{Checks: after}); err != nil {
		t.Fatal(err)
	}
	got, err := s.Checks(ctx, r.ID)
	if err != nil {
		t.Fatal(err)
	}
	var order []string
	for _, c := range got {
		order = append(order, c.Verdict)
	}
	if !reflect.DeepEqual(order, []string{"baseline", "baseline", "broken", "pre-existing"}) {
		t.Fatalf("order %v", order)
	}
	if got[2].Tail != "x.go:1: syntax error" || got[2].ExitCode != 2 || got[1].DurationMS != 0 || got[0].DurationMS != 1200 {
		t.Errorf("fields lost: %+v", got)
	}
	// The round runs again: its rows are replaced.
	again := after[1]
	again.Status, again.ExitCode, again.Verdict = "passed", 0, "passes"
	if err := s.Commit(ctx, r.ID, Change{Checks: []CheckResult{again}}); err != nil {
		t.Fatal(err)
	}
	if got, _ = s.Checks(ctx, r.ID); len(got) != 4 || got[2].Verdict != "passes" {
		t.Errorf("after the round ran again: %+v", got)
	}
	if err := s.Commit(ctx, r.ID, Change{Checks: []CheckResult{{Round: 1}}}); !errors.Is(err, ErrInvalid) {
		t.Errorf("a check without a command: %v", err)
	}
	if err := s.DeleteRun(ctx, r.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Checks(ctx, r.ID); !errors.Is(err, ErrNotFound) {
		t.Errorf("checks of a deleted run: %v", err)
	}
	var n int
	if err := s.db.QueryRow(`SELECT COUNT(*) FROM check_results WHERE run_id = ?`, r.ID).Scan(&n); err != nil || n != 0 {
		t.Errorf("%d check rows left after the run was deleted (%v)", n, err)
	}
}

// A worker keeps the outputs it claimed and did not write, and the files
// it changed outside its scope.
func TestWorkerKeepsWhatBatonFound(t *testing.T) {
	t.Parallel()
	s, _ := openTest(t)
	ctx := context.Background()
	r := newRun("orch_found", time.Now())
	if err := s.CreateRun(ctx, r); err != nil {
		t.Fatal(err)
	}
	task := Task{ID: "task_001", Title: "t", Description: "d"}
	w := Worker{TaskID: "task_001", Status: "completed", MissingOutputs: []string{"docs/README.md"}, OutOfScope: []string{"go.mod"}}
	if err := s.Commit(ctx, r.ID, Change{Tasks: []Task{task}, Workers: []Worker{w}}); err != nil {
		t.Fatal(err)
	}
	ws, err := s.Workers(ctx, r.ID)
	if err != nil || len(ws) != 1 {
		t.Fatalf("workers %v %v", ws, err)
	}
	if !reflect.DeepEqual(ws[0].MissingOutputs, w.MissingOutputs) || !reflect.DeepEqual(ws[0].OutOfScope, w.OutOfScope) {
		t.Errorf("worker %+v", ws[0])
	}
	w.MissingOutputs, w.OutOfScope = nil, nil
	if err := s.Commit(ctx, r.ID, Change{Workers: []Worker{w}}); err != nil {
		t.Fatal(err)
	}
	if ws, _ = s.Workers(ctx, r.ID); ws[0].MissingOutputs == nil || len(ws[0].MissingOutputs) != 0 || len(ws[0].OutOfScope) != 0 {
		t.Errorf("cleared lists read back as %#v %#v", ws[0].MissingOutputs, ws[0].OutOfScope)
	}
}
