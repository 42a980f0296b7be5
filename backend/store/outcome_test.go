package store

import (
	"context"
	"reflect"
	"testing"
	"time"
)

// The outcomes of a run that reached its end without doing everything are
// statuses of their own, finished, kept with their reasons, and filterable
// in the history.
func TestOutcomeStatusesKeepTheirIssues(t *testing.T) {
	t.Parallel()
	s, _ := openTest(t)
	ctx := context.Background()
	for _, st := range []string{"completed_with_issues", "failed"} {
		if !ValidRunStatus(st) || !Finished(st) {
			t.Errorf("%s: valid %v, finished %v; want both", st, ValidRunStatus(st), Finished(st))
		}
	}
	base := time.Now()
	r := newRun("orch_issues", base)
	if err := s.CreateRun(ctx, r); err != nil {
		t.Fatal(err)
	}
	got, err := s.Run(ctx, r.ID)
	if err != nil || got.Issues == nil || len(got.Issues) != 0 {
		t.Fatalf("a new run's issues = %#v, %v; want an empty list", got.Issues, err)
	}
	r.Status = "completed_with_issues"
	r.Issues = []string{"1 of 3 tasks failed: task_002.", "2 conflicts are still open."}
	done := base.Add(time.Minute)
	r.CompletedAt = &done
	if err := s.Commit(ctx, r.ID, Change{Run: &r, FinalReport: []byte(`{"status":"completed_with_issues"}`)}); err != nil {
		t.Fatal(err)
	}
	other := newRun("orch_clean", base.Add(time.Second))
	other.Status = "completed"
	if err := s.CreateRun(ctx, other); err != nil {
		t.Fatal(err)
	}
	if got, err = s.Run(ctx, r.ID); err != nil || !reflect.DeepEqual(got.Issues, r.Issues) || got.Status != r.Status {
		t.Errorf("stored run = %s %#v, %v; want %s %#v", got.Status, got.Issues, err, r.Status, r.Issues)
	}
	page, err := s.Runs(ctx, HistoryQuery{Status: []string{"completed_with_issues"}})
	if err != nil || len(page.Runs) != 1 || page.Runs[0].ID != r.ID || len(page.Runs[0].Issues) != 2 {
		t.Errorf("history of completed_with_issues = %+v, %v", page.Runs, err)
	}
	unfinished, err := s.Unfinished(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range unfinished {
		if u.ID == r.ID {
			t.Errorf("a run that completed with issues is listed as unfinished")
		}
	}
}
