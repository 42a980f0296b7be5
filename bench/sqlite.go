package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/baton-app/baton/backend/store"
)

// sqliteLatencies commits n worker transitions with their event, the write
// the engine makes for every status change (as BenchmarkCommitTransition
// does), to a database on disk, and returns the time of each commit.
func sqliteLatencies(ctx context.Context, n int) ([]time.Duration, error) {
	dir, err := tempDir("baton-bench-sqlite-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	s, err := store.Open(filepath.Join(dir, "bench.db"), store.WithLogger(quiet))
	if err != nil {
		return nil, err
	}
	defer s.Close()
	r := store.Run{ID: "orch_bench", TemplateID: "documentation", TemplateName: "Documentation", Cwd: dir,
		Request: "Document this project", Variables: map[string]any{"OUTPUT_DIR": "docs"}, Status: "created", CreatedAt: time.Now()}
	if err := s.CreateRun(ctx, r); err != nil {
		return nil, err
	}
	var tasks []store.Task
	for i := range 20 {
		tasks = append(tasks, store.Task{ID: fmt.Sprintf("t%d", i), Position: i, Title: "t", Description: "d"})
	}
	if err := s.Commit(ctx, r.ID, store.Change{Tasks: tasks}); err != nil {
		return nil, err
	}
	r.Status = "running"
	out := make([]time.Duration, 0, n)
	for i := range n {
		w := store.Worker{TaskID: fmt.Sprintf("t%d", i%20), Status: "running", Progress: float64(i % 100)}
		start := time.Now()
		if err := s.Commit(ctx, r.ID, store.Change{Run: &r, Workers: []store.Worker{w},
			Events: []store.Event{{Name: "worker:started", TaskID: w.TaskID}}}); err != nil {
			return nil, err
		}
		out = append(out, time.Since(start))
	}
	return out, nil
}
