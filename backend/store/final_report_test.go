package store

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"
)

func TestFinalReportComesWithTheFinishingChange(t *testing.T) {
	t.Parallel()
	s, path := openTest(t)
	ctx := context.Background()
	r := newRun("orch_1", time.Now())
	if err := s.CreateRun(ctx, r); err != nil {
		t.Fatal(err)
	}
	if _, err := s.FinalReport(ctx, r.ID); !errors.Is(err, ErrNoReport) {
		t.Fatalf("FinalReport of a new run = %v, want ErrNoReport", err)
	}
	if _, err := s.FinalReport(ctx, "orch_nope"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("FinalReport of an unknown run = %v, want ErrNotFound", err)
	}

	running := r
	running.Status = "running"
	if err := s.Commit(ctx, r.ID, Change{Run: &running}); err != nil {
		t.Fatal(err)
	}
	before := snapshot(t, s, r.ID)
	done := r
	done.Status = "completed"
	report := json.RawMessage(`{"runId":"orch_1","files":[{"path":"docs/a.md"}]}`)
	bad := []struct {
		name string
		c    Change
	}{
		{"without the run row", Change{FinalReport: report}},
		{"with a run that is still running", Change{Run: &running, FinalReport: report}},
		{"not JSON", Change{Run: &done, FinalReport: json.RawMessage(`{"runId":`)}},
		{"not an object", Change{Run: &done, FinalReport: json.RawMessage(`["a"]`)}},
		{"null", Change{Run: &done, FinalReport: json.RawMessage(`null`)}},
	}
	for _, tc := range bad {
		t.Run(tc.name, func(t *testing.T) {
			if err := s.Commit(ctx, r.ID, tc.c); !errors.Is(err, ErrInvalid) {
				t.Fatalf("Commit = %v, want ErrInvalid", err)
			}
			if got := snapshot(t, s, r.ID); got != before {
				t.Errorf("store changed after a refused commit:\n%s\n%s", before, got)
			}
			if _, err := s.FinalReport(ctx, r.ID); !errors.Is(err, ErrNoReport) {
				t.Errorf("FinalReport after a refused commit = %v, want ErrNoReport", err)
			}
		})
	}

	if err := s.Commit(ctx, r.ID, Change{Run: &done, FinalReport: report,
		Events: []Event{{Name: "orchestrator:completed"}}}); err != nil {
		t.Fatal(err)
	}
	got, err := s.FinalReport(ctx, r.ID)
	if err != nil || string(got) != string(report) {
		t.Fatalf("FinalReport = %s, %v; want %s", got, err, report)
	}
	// A later finishing change replaces it (one report per run).
	again := json.RawMessage(`{"runId":"orch_1","files":[]}`)
	if err := s.Commit(ctx, r.ID, Change{Run: &done, FinalReport: again}); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := s.db.QueryRow(`SELECT COUNT(*) FROM final_reports WHERE run_id = ?`, r.ID).Scan(&n); err != nil || n != 1 {
		t.Errorf("%d report rows (%v), want 1", n, err)
	}

	// Reopened, the report is still there; deleting the run deletes it.
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s2, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	if got, err := s2.FinalReport(ctx, r.ID); err != nil || string(got) != string(again) {
		t.Errorf("FinalReport after reopening = %s, %v; want %s", got, err, again)
	}
	if err := s2.DeleteRun(ctx, r.ID); err != nil {
		t.Fatal(err)
	}
	if err := s2.db.QueryRow(`SELECT COUNT(*) FROM final_reports`).Scan(&n); err != nil || n != 0 {
		t.Errorf("%d report rows after DeleteRun (%v), want 0", n, err)
	}
}

// A database of schema version 2 (before final reports) gains the table and
// keeps its runs.
func TestFinalReportMigrationUpgradesAnOlderDatabase(t *testing.T) {
	t.Parallel()
	s, path := openTest(t)
	ctx := context.Background()
	r := newRun("orch_old", time.Now())
	r.Status = "completed"
	if err := s.CreateRun(ctx, r); err != nil {
		t.Fatal(err)
	}
	// Back to version 2: without the tables and columns of the later
	// migrations.
	if _, err := s.db.Exec(`DROP TABLE final_reports; ALTER TABLE runs DROP COLUMN limits;
		ALTER TABLE workers DROP COLUMN model; ALTER TABLE runs DROP COLUMN issues;
		ALTER TABLE runs DROP COLUMN host; ALTER TABLE workers DROP COLUMN missing_outputs;
		ALTER TABLE workers DROP COLUMN out_of_scope; DROP TABLE check_results; DROP TABLE run_locks;
		DELETE FROM schema_version WHERE version >= 3`); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s2, err := Open(path)
	if err != nil {
		t.Fatalf("reopen: %v", err)
	}
	defer s2.Close()
	ms, err := migrations()
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := s2.SchemaVersion(ctx); v != ms[len(ms)-1].version {
		t.Errorf("SchemaVersion = %d, want %d", v, ms[len(ms)-1].version)
	}
	if got, err := s2.Run(ctx, r.ID); err != nil || got.Status != "completed" || got.Issues == nil || len(got.Issues) != 0 {
		t.Errorf("run after the upgrade = %+v, %v", got, err)
	}
	if _, err := s2.FinalReport(ctx, r.ID); !errors.Is(err, ErrNoReport) {
		t.Errorf("FinalReport of a run finished before the upgrade = %v, want ErrNoReport", err)
	}
}
