package inbox

import (
	"context"
	"strings"
	"testing"

	"github.com/baton-app/baton/backend/engine"
	"github.com/baton-app/baton/backend/store"
)

// A merge conflict of worktree isolation is an inbox item only once it
// waits for the user (its merge task could not resolve it).
func TestCollectMergeConflict(t *testing.T) {
	t.Parallel()
	wt := func(byUser bool) *engine.Worktree {
		return &engine.Worktree{Branch: "baton/a", RunDir: "/data/worktrees/a/run",
			Conflict: &engine.ConflictState{TaskID: "task_002", Files: []string{"a.go", "b.go"}, Resolver: "merge-task_002", ByUser: byUser}}
	}
	runs := fakeRuns{
		"a": {Run: store.Run{ID: "a", Status: "running"}, Worktree: wt(true)},
		"b": {Run: store.Run{ID: "b", Status: "running"}, Worktree: wt(false)},
	}
	items, err := Collect(context.Background(), runs, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(items) != 1 || items[0].Kind != KindMergeConflict || items[0].RunID != "a" || items[0].TaskID != "task_002" {
		t.Fatalf("items = %+v, want the conflict of run a", items)
	}
	if !strings.Contains(items[0].Detail, "a.go, b.go") || !strings.Contains(items[0].Detail, "/data/worktrees/a/run") {
		t.Fatalf("detail = %q", items[0].Detail)
	}
}
