package main

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/baton-app/baton/backend/engine"
	"github.com/baton-app/baton/backend/store"
)

// apply turns proposed tasks and the modifications layered returns into
// the task list the engine would run (the fields layered sets).
func apply(proposed []store.Task, m engine.Modifications) []store.Task {
	out := slices.Clone(proposed)
	for _, e := range m.Edit {
		for i := range out {
			if out[i].ID == e.ID && e.Dependencies != nil {
				out[i].Dependencies = *e.Dependencies
			}
		}
	}
	for _, a := range m.Add {
		out = append(out, store.Task{ID: a.ID, Title: a.Title, Description: a.Description, Scope: a.Scope,
			Priority: a.Priority, Dependencies: a.Dependencies})
	}
	return out
}

// proposal is what the simulator plans for a project of n folders: one
// task per folder and one that depends on them all.
func proposal(n int) []store.Task {
	var ts []store.Task
	var ids []string
	for i := 1; i <= n; i++ {
		id := fmt.Sprintf("task_%03d", i)
		ids = append(ids, id)
		ts = append(ts, store.Task{ID: id, Title: "t", Description: "d", Priority: 5})
	}
	return append(ts, store.Task{ID: fmt.Sprintf("task_%03d", n+1), Title: "Integrate", Description: "d", Priority: 1, Dependencies: ids})
}

func TestLayered(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name                  string
		folders, width, total int
		groups                int
	}{
		{name: "20-task DAG", folders: 4, width: 5, total: 20, groups: 4},
		{name: "5 at once", folders: 4, width: 5, total: 5, groups: 1},
		{name: "20 at once", folders: 8, width: 20, total: 20, groups: 1},
		{name: "10 at once", folders: 8, width: 10, total: 10, groups: 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tasks := apply(proposal(tc.folders), layered(proposal(tc.folders), tc.width, tc.total, folderNames[:tc.folders]))
			if len(tasks) != tc.total {
				t.Fatalf("%d tasks, want %d", len(tasks), tc.total)
			}
			if err := engine.CheckTasks(tasks, 100); err != nil {
				t.Fatalf("the plan is refused: %v", err)
			}
			groups := engine.ParallelGroups(tasks)
			if len(groups) != tc.groups {
				t.Fatalf("%d layers, want %d: %v", len(groups), tc.groups, groups)
			}
			for _, g := range groups {
				if len(g) != tc.width {
					t.Errorf("layer %v has %d tasks, want %d", g, len(g), tc.width)
				}
			}
		})
	}
}

func TestPercentile(t *testing.T) {
	t.Parallel()
	var d []time.Duration
	for i := 100; i >= 1; i-- {
		d = append(d, time.Duration(i)*time.Millisecond)
	}
	tests := []struct {
		p    float64
		want time.Duration
	}{{.5, 50 * time.Millisecond}, {.99, 99 * time.Millisecond}, {1, 100 * time.Millisecond}, {.001, time.Millisecond}}
	for _, tc := range tests {
		if got := percentile(d, tc.p); got != tc.want {
			t.Errorf("percentile %v = %v, want %v", tc.p, got, tc.want)
		}
	}
	if got := percentile(nil, .5); got != 0 {
		t.Errorf("percentile of nothing = %v, want 0", got)
	}
}

func TestSplitWorkers(t *testing.T) {
	t.Parallel()
	tests := []struct {
		n    int
		want []int
	}{{5, []int{5}}, {20, []int{20}}, {50, []int{20, 20, 10}}, {41, []int{20, 20, 1}}}
	for _, tc := range tests {
		if got := splitWorkers(tc.n); !slices.Equal(got, tc.want) {
			t.Errorf("splitWorkers(%d) = %v, want %v", tc.n, got, tc.want)
		}
	}
}

// TestMeasureDAG checks the critical path over a diamond with known agent
// times and the overhead against the recorded wall time.
func TestMeasureDAG(t *testing.T) {
	t.Parallel()
	rec := newRecorder()
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	agent := map[string]time.Duration{"a": 100 * time.Millisecond, "b": 300 * time.Millisecond, "c": 200 * time.Millisecond, "d": 50 * time.Millisecond}
	snap := engine.Snapshot{Run: store.Run{ID: "orch_x"}, Tasks: []store.Task{
		{ID: "a"}, {ID: "b", Dependencies: []string{"a"}}, {ID: "c", Dependencies: []string{"a"}}, {ID: "d", Dependencies: []string{"b", "c"}},
	}}
	for id, d := range agent {
		sid := "s_" + id
		snap.Workers = append(snap.Workers, store.Worker{TaskID: id, SessionID: sid})
		rec.onEntry(sid, t0)
		rec.onEntry(sid, t0.Add(d))
	}
	rec.completed["orch_x"] = map[string]time.Time{"d": t0.Add(time.Second)}
	got, err := measureDAG(rec, snap, t0)
	if err != nil {
		t.Fatal(err)
	}
	if got.Critical != 450*time.Millisecond || got.Wall != time.Second || got.Overhead() != 550*time.Millisecond {
		t.Fatalf("critical %v, wall %v, overhead %v; want 450ms, 1s, 550ms", got.Critical, got.Wall, got.Overhead())
	}
}

// TestMeasureDAGRetried: a task retried in a new session counts the agent
// time of both of its sessions, which the engine names by attempt.
func TestMeasureDAGRetried(t *testing.T) {
	t.Parallel()
	rec := newRecorder()
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	sid := func(part string) string { return workerSession(t, "orch_x", part) }
	entries := func(id string, from, to time.Duration) {
		rec.onEntry(id, t0.Add(from))
		rec.onEntry(id, t0.Add(to))
	}
	entries(sid("a"), 0, 100*time.Millisecond)
	entries(sid("b"), 150*time.Millisecond, 350*time.Millisecond) // the failed attempt
	entries(sid("b-r1"), 400*time.Millisecond, 550*time.Millisecond)
	snap := engine.Snapshot{Run: store.Run{ID: "orch_x"},
		Tasks:   []store.Task{{ID: "a"}, {ID: "b", Dependencies: []string{"a"}}},
		Workers: []store.Worker{{TaskID: "a", SessionID: sid("a")}, {TaskID: "b", SessionID: sid("b-r1"), RetryCount: 1}}}
	rec.completed["orch_x"] = map[string]time.Time{"b": t0.Add(600 * time.Millisecond)}
	got, err := measureDAG(rec, snap, t0)
	if err != nil {
		t.Fatal(err)
	}
	if got.Critical != 450*time.Millisecond || got.Retried != 1 || got.Overhead() != 150*time.Millisecond {
		t.Fatalf("critical %v, retried %d, overhead %v; want 450ms (100 + 200 + 150), 1, 150ms", got.Critical, got.Retried, got.Overhead())
	}
}

// workerSession is the session id the engine gives the attempt part
// ("task", "task-r1") of a task's worker in run.
func workerSession(t *testing.T, run, part string) string {
	t.Helper()
	id, err := engine.WorkerSessionID(run, part)
	if err != nil {
		t.Fatal(err)
	}
	return string(id)
}
