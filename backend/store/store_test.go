package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

func openTest(t *testing.T) (*Store, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "sub", "baton.db")
	s, err := Open(path)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s, path
}

func newRun(id string, created time.Time) Run {
	return Run{ID: id, TemplateID: "documentation", TemplateName: "Documentation", Cwd: "/tmp/p",
		Request: "Document the store package", Variables: map[string]any{"OUTPUT_DIR": "docs"},
		Status: "created", CreatedAt: created}
}

func TestOpenCreatesPrivateFileWithSchema(t *testing.T) {
	t.Parallel()
	s, path := openTest(t)
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("mode = %v, want 0600", fi.Mode().Perm())
	}
	ctx := context.Background()
	v, err := s.SchemaVersion(ctx)
	if err != nil || v != 4 {
		t.Errorf("SchemaVersion = %d, %v; want 4", v, err)
	}
	var mode string
	if err := s.db.QueryRow(`PRAGMA journal_mode`).Scan(&mode); err != nil || mode != "wal" {
		t.Errorf("journal_mode = %q, %v", mode, err)
	}
	// Reopening applies nothing twice.
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s2, err := Open(path)
	if err != nil {
		t.Fatalf("reopen: %v", err)
	}
	defer s2.Close()
	if v, _ := s2.SchemaVersion(ctx); v != 4 {
		t.Errorf("after reopen version = %d", v)
	}
}

func TestCommitWritesEverythingOrNothing(t *testing.T) {
	t.Parallel()
	s, _ := openTest(t)
	ctx := context.Background()
	r := newRun("orch_1", time.Now())
	if err := s.CreateRun(ctx, r, Event{Name: "orchestrator:created"}); err != nil {
		t.Fatal(err)
	}
	if err := s.CreateRun(ctx, r); !errors.Is(err, ErrExists) {
		t.Errorf("second CreateRun: %v, want ErrExists", err)
	}
	r.Status = "confirming"
	tasks := []Task{
		{ID: "task_001", Position: 0, Title: "A", Description: "a", Priority: 5},
		{ID: "task_002", Position: 1, Title: "B", Description: "b", Priority: 7, Dependencies: []string{"task_001"}},
	}
	if err := s.Commit(ctx, r.ID, Change{Run: &r, Tasks: tasks, ReplaceTasks: true,
		Answers: []PhaseAnswer{{Phase: "task_list", Status: "valid", Data: json.RawMessage(`{"tasks":[]}`)}},
		Events:  []Event{{Name: "orchestrator:tasksReady", Payload: json.RawMessage(`{"n":2}`)}}}); err != nil {
		t.Fatal(err)
	}
	before := snapshot(t, s, r.ID)

	bad := []struct {
		name  string
		runID string
		c     Change
		want  error
	}{
		{"unknown run", "orch_nope", Change{Events: []Event{{Name: "x"}}}, ErrNotFound},
		{"invalid run status", r.ID, Change{Run: &Run{ID: r.ID, TemplateID: "d", Status: "flying"}}, ErrInvalidStatus},
		{"invalid worker status", r.ID, Change{Workers: []Worker{{TaskID: "task_001", Status: "sleeping"}}}, ErrInvalidStatus},
		{"worker of unknown task", r.ID, Change{
			Run:     &Run{ID: r.ID, TemplateID: "documentation", Status: "running"},
			Workers: []Worker{{TaskID: "task_009", Status: "running"}},
			Events:  []Event{{Name: "worker:started"}}}, ErrNotFound},
		{"row of another run", r.ID, Change{Run: &Run{ID: "orch_2", TemplateID: "d", Status: "running"}}, ErrInvalid},
		{"event without name", r.ID, Change{Run: &Run{ID: r.ID, TemplateID: "d", Status: "running"}, Events: []Event{{}}}, ErrInvalid},
	}
	for _, tc := range bad {
		t.Run(tc.name, func(t *testing.T) {
			err := s.Commit(ctx, tc.runID, tc.c)
			if !errors.Is(err, tc.want) {
				t.Fatalf("Commit = %v, want %v", err, tc.want)
			}
			if got := snapshot(t, s, r.ID); got != before {
				t.Errorf("store changed after a refused commit:\n%s\n%s", before, got)
			}
		})
	}

	got, err := s.Run(ctx, r.ID)
	if err != nil || got.Status != "confirming" || got.Variables["OUTPUT_DIR"] != "docs" {
		t.Errorf("Run = %+v, %v", got, err)
	}
	ts, _ := s.Tasks(ctx, r.ID)
	if len(ts) != 2 || ts[1].Dependencies[0] != "task_001" {
		t.Errorf("Tasks = %+v", ts)
	}
	// ReplaceTasks drops tasks not listed, and their workers.
	now := time.Now()
	if err := s.Commit(ctx, r.ID, Change{Workers: []Worker{{TaskID: "task_002", Status: "running", StartedAt: &now,
		Tools: ToolStats{Total: 2, Reads: 2}, Waiting: &Permission{RequestID: "p1", ToolName: "Bash"},
		Questions: []string{"Which port?"}, Conflicts: []string{"api.go: both edit Serve"}}}}); err != nil {
		t.Fatal(err)
	}
	ws, _ := s.Workers(ctx, r.ID)
	if len(ws) != 1 || ws[0].Tools.Reads != 2 || ws[0].Waiting == nil || ws[0].Waiting.ToolName != "Bash" ||
		len(ws[0].Questions) != 1 || ws[0].Questions[0] != "Which port?" || len(ws[0].Conflicts) != 1 {
		t.Errorf("Workers = %+v", ws)
	}
	// Skills matched to a task are kept; a task without any reads back empty, not null.
	withSkills := tasks[0]
	withSkills.Skills = []string{"go-testing", "sqlite"}
	if err := s.Commit(ctx, r.ID, Change{Tasks: []Task{withSkills}}); err != nil {
		t.Fatal(err)
	}
	if ts, _ := s.Tasks(ctx, r.ID); len(ts) != 2 || strings.Join(ts[0].Skills, ",") != "go-testing,sqlite" ||
		ts[1].Skills == nil || len(ts[1].Skills) != 0 {
		t.Errorf("task skills = %+v", ts)
	}
	if err := s.Commit(ctx, r.ID, Change{Tasks: tasks[:1], ReplaceTasks: true}); err != nil {
		t.Fatal(err)
	}
	if ws, _ := s.Workers(ctx, r.ID); len(ws) != 0 {
		t.Errorf("workers of a removed task remain: %+v", ws)
	}
	evs, _ := s.Events(ctx, r.ID, 0, 0)
	if len(evs) != 2 || evs[0].Name != "orchestrator:created" || evs[1].Name != "orchestrator:tasksReady" {
		t.Errorf("Events = %+v", evs)
	}
	if _, err := s.Tasks(ctx, "orch_nope"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Tasks of unknown run: %v", err)
	}
	if _, err := s.Run(ctx, "orch_nope"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Run of unknown id: %v", err)
	}
}

func snapshot(t *testing.T, s *Store, id string) string {
	t.Helper()
	ctx := context.Background()
	r, err := s.Run(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	r.UpdatedAt = time.Time{}
	ts, _ := s.Tasks(ctx, id)
	ws, _ := s.Workers(ctx, id)
	as, _ := s.Answers(ctx, id)
	es, _ := s.Events(ctx, id, 0, 0)
	b, _ := json.Marshal([]any{r, ts, ws, as, es})
	return string(b)
}

func TestHistoryQueries(t *testing.T) {
	t.Parallel()
	s, _ := openTest(t)
	ctx := context.Background()
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	requests := []string{"Document the REST API", "Add tests for the store", "Review the parser", "Document the CLI flags"}
	statuses := []string{"completed", "error", "completed", "running"}
	templates := []string{"documentation", "test-coverage", "code-review", "documentation"}
	for i := 0; i < 40; i++ {
		r := newRun(fmt.Sprintf("orch_%02d", i), base.Add(time.Duration(i)*time.Hour))
		r.Request = requests[i%4]
		r.TemplateID = templates[i%4]
		r.Status = statuses[i%4]
		if err := s.CreateRun(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name      string
		q         HistoryQuery
		wantTotal int
		wantFirst string
		wantLen   int
		wantNext  int
	}{
		{"all, first page", HistoryQuery{Limit: 15}, 40, "orch_39", 15, 15},
		{"all, last page", HistoryQuery{Limit: 15, Offset: 30}, 40, "orch_09", 10, -1},
		{"by status", HistoryQuery{Status: []string{"error", "running"}}, 20, "orch_39", 20, -1},
		{"by template", HistoryQuery{TemplateID: "code-review"}, 10, "orch_38", 10, -1},
		{"by text", HistoryQuery{Text: "document"}, 20, "orch_39", 20, -1},
		{"by text prefix and words", HistoryQuery{Text: "docu rest"}, 10, "orch_36", 10, -1},
		{"text with query syntax is plain words", HistoryQuery{Text: `"parser" OR NEAR(`}, 0, "", 0, -1},
		{"by date", HistoryQuery{From: base.Add(10 * time.Hour), To: base.Add(20 * time.Hour)}, 10, "orch_19", 10, -1},
		{"combined", HistoryQuery{Status: []string{"completed"}, Text: "review", TemplateID: "code-review"}, 10, "orch_38", 10, -1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, err := s.Runs(ctx, tc.q)
			if err != nil {
				t.Fatal(err)
			}
			if p.Total != tc.wantTotal || len(p.Runs) != tc.wantLen || p.NextOffset != tc.wantNext {
				t.Fatalf("total %d len %d next %d; want %d %d %d", p.Total, len(p.Runs), p.NextOffset, tc.wantTotal, tc.wantLen, tc.wantNext)
			}
			if tc.wantLen > 0 && p.Runs[0].ID != tc.wantFirst {
				t.Errorf("first = %s, want %s", p.Runs[0].ID, tc.wantFirst)
			}
		})
	}
	if _, err := s.Runs(ctx, HistoryQuery{Status: []string{"bogus"}}); !errors.Is(err, ErrInvalidStatus) {
		t.Errorf("bad status: %v", err)
	}
	// The history query uses the indexes.
	var plan, detail string
	var a, b int
	row := s.db.QueryRow(`EXPLAIN QUERY PLAN SELECT id FROM runs WHERE status IN ('error') ORDER BY created_at DESC LIMIT 10`)
	if err := row.Scan(&a, &b, &plan, &detail); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(detail, "INDEX") {
		t.Errorf("status query does not use an index: %s", detail)
	}
	unf, err := s.Unfinished(ctx)
	if err != nil || len(unf) != 10 || unf[0].ID != "orch_03" {
		t.Errorf("Unfinished = %d runs, %v", len(unf), err)
	}
	if err := s.DeleteRun(ctx, "orch_03"); err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteRun(ctx, "orch_03"); !errors.Is(err, ErrNotFound) {
		t.Errorf("second delete: %v", err)
	}
	if p, _ := s.Runs(ctx, HistoryQuery{Text: "CLI"}); p.Total != 9 {
		t.Errorf("after delete, text search total = %d, want 9", p.Total)
	}
}

func TestConcurrentCommits(t *testing.T) {
	t.Parallel()
	s, _ := openTest(t)
	ctx := context.Background()
	if err := s.CreateRun(ctx, newRun("orch_c", time.Now())); err != nil {
		t.Fatal(err)
	}
	var tasks []Task
	for i := 0; i < 8; i++ {
		tasks = append(tasks, Task{ID: fmt.Sprintf("t%d", i), Position: i, Title: "t", Description: "d"})
	}
	if err := s.Commit(ctx, "orch_c", Change{Tasks: tasks}); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 8*20)
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			for j := 0; j < 20; j++ {
				errs <- s.Commit(ctx, "orch_c", Change{
					Workers: []Worker{{TaskID: fmt.Sprintf("t%d", i), Status: "running", Progress: float64(j)}},
					Events:  []Event{{Name: "worker:progress", TaskID: fmt.Sprintf("t%d", i)}}})
			}
		}(i)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	evs, _ := s.Events(ctx, "orch_c", 0, 10000)
	if len(evs) != 160 {
		t.Errorf("events = %d, want 160", len(evs))
	}
}
