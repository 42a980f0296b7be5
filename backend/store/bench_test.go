package store

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"
)

// BenchmarkCommitTransition measures one worker transition with its event:
// the write the engine makes for every status change.
func BenchmarkCommitTransition(b *testing.B) {
	s, err := Open(filepath.Join(b.TempDir(), "bench.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	r := newRun("orch_bench", time.Now())
	if err := s.CreateRun(ctx, r); err != nil {
		b.Fatal(err)
	}
	var tasks []Task
	for i := 0; i < 20; i++ {
		tasks = append(tasks, Task{ID: fmt.Sprintf("t%d", i), Position: i, Title: "t", Description: "d"})
	}
	if err := s.Commit(ctx, r.ID, Change{Tasks: tasks}); err != nil {
		b.Fatal(err)
	}
	r.Status = "running"
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		w := Worker{TaskID: fmt.Sprintf("t%d", i%20), Status: "running", Progress: float64(i % 100)}
		if err := s.Commit(ctx, r.ID, Change{Run: &r, Workers: []Worker{w},
			Events: []Event{{Name: "worker:started", TaskID: w.TaskID}}}); err != nil {
			b.Fatal(err)
		}
	}
}
