package outputs

import (
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/baton-app/baton/backend/protocol"
	"github.com/baton-app/baton/backend/scope"
	"github.com/baton-app/baton/backend/store"
	"github.com/baton-app/baton/backend/testsupport"
)

// task is a task with scope and the plan's expected outputs.
func task(t *testing.T, scope []string, expected ...string) *store.Task {
	t.Helper()
	def, err := json.Marshal(protocol.Task{ID: "task_001", ExpectedOutputs: expected})
	if err != nil {
		t.Fatal(err)
	}
	return &store.Task{ID: "task_001", Scope: scope, Definition: def}
}

// In a worktree the check reads git's list of what changed since the
// task's base, not the report: a file the report claims and git does not
// list is missing, a file changed outside the scope is outside, Baton's
// own folders are neither.
func TestJudgeReadsGitInAWorktree(t *testing.T) {
	dir := testsupport.GitRepo(t, t.TempDir(), map[string]string{"docs/a.md": "a\n", "src/x.go": "package x\n"})
	base := strings.TrimSpace(testsupport.Git(t, dir, "rev-parse", "HEAD"))
	testsupport.WriteFile(t, filepath.Join(dir, "docs", "b.md"), "b\n")
	testsupport.WriteFile(t, filepath.Join(dir, "src", "x.go"), "package x // changed\n")
	testsupport.WriteFile(t, filepath.Join(dir, ".claude", "settings.local.json"), "{}\n")

	w := Work{Folder: dir, Task: task(t, []string{"docs"}, "docs/b.md"), Worktree: true, Base: base, MayAsk: true}
	report := &protocol.Completion{TaskID: "task_001", Status: "success", FilesCreated: []string{"docs/b.md", "docs/c.md"}}
	v, err := w.Judge(context.Background(), report)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(v.Missing, []string{"docs/c.md"}) || !slices.Equal(v.Outside, []string{"src/x.go"}) {
		t.Fatalf("verdict %+v, want docs/c.md missing and src/x.go outside", v)
	}

	// The first such report is asked again, naming what is missing; the
	// second is kept with what is missing and outside.
	k := w.Keep(v)
	if !strings.Contains(k.Ask, "docs/c.md") || !strings.Contains(k.Ask, `"task_id": "task_001"`) || k.Missing != nil {
		t.Fatalf("first report: %+v", k)
	}
	w.Asked = true
	if k := w.Keep(v); k.Ask != "" || !slices.Equal(k.Missing, []string{"docs/c.md"}) || !slices.Equal(k.Outside, []string{"src/x.go"}) {
		t.Fatalf("second report: %+v", k)
	}

	// A worker in plan mode writes nothing: nothing it declares is missing.
	w.PlanMode = true
	if v, err := w.Judge(context.Background(), report); err != nil || len(v.Missing) != 0 || !slices.Equal(v.Outside, []string{"src/x.go"}) {
		t.Fatalf("plan mode: %+v %v", v, err)
	}

	// A base git does not know is an error, not an empty list.
	w.Base = "0123456789abcdef0123456789abcdef01234567"
	if _, err := w.Judge(context.Background(), report); err == nil {
		t.Fatal("an unknown base was read as no change")
	}
}

// In a shared folder the check reads the snapshot taken before the worker
// started: a file that was already there and not touched is not the
// worker's output; one its tool calls wrote outside the snapshot counts.
func TestJudgeReadsTheSnapshotInASharedFolder(t *testing.T) {
	dir := t.TempDir()
	testsupport.WriteTree(t, dir, map[string]string{"docs/old.md": "old\n", "notes.txt": "n\n"})
	tk := task(t, []string{"docs"}, "docs/new.md")
	before := scope.Take(dir, SnapshotRoots(tk))
	testsupport.WriteFile(t, filepath.Join(dir, "docs", "new.md"), "new\n")
	testsupport.WriteFile(t, filepath.Join(dir, "tool.txt"), "written by a tool call\n")

	w := Work{Folder: dir, Task: tk, Before: &before, ToolFiles: []string{"tool.txt"}}
	v, err := w.Judge(context.Background(), &protocol.Completion{Status: "success", FilesModified: []string{"docs/old.md"}})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(v.Missing, []string{"docs/old.md"}) || !slices.Equal(v.Outside, []string{"tool.txt"}) {
		t.Fatalf("verdict %+v, want docs/old.md missing (untouched) and tool.txt outside", v)
	}
	if k := w.Keep(v); k.Ask != "" || len(k.Missing) != 1 {
		t.Fatalf("a worker that may not be asked keeps the verdict: %+v", k)
	}
}
