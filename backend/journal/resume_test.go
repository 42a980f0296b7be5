package journal

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestResumeKeepsTheCheckpointAndAddsTheNewPlan(t *testing.T) {
	t.Parallel()
	cwd := t.TempDir()
	j := New(cwd, nil)
	if _, _, err := j.Resume(Project{Name: "p"}, nil); !errors.Is(err, ErrNoJournal) {
		t.Errorf("Resume without a journal = %v, want ErrNoJournal", err)
	}
	if _, err := j.Init(Project{Name: "p", Request: "first"}, []Task{
		{ID: "t1", Name: "Parse", Objective: "Write the parser"},
		{ID: "t2", Name: "Docs", Objective: "Document it"},
	}); err != nil {
		t.Fatal(err)
	}
	if err := j.SetStatus("t1", StatusFailed); err != nil {
		t.Fatal(err)
	}
	ix, _ := j.Load()
	t1, _ := ix.Task("t1")
	path := filepath.Join(j.Dir(), t1.File)
	f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	_, _ = f.WriteString("\n### Entry 1\nThe lexer is done; the parser is not.\n")
	f.Close()

	ix, resumed, err := j.Resume(Project{Name: "p", Request: "second", Domain: []string{"go"}}, []Task{
		{ID: "t1", Name: "Parse", Objective: "Write the parser"},  // the same task: resumed
		{ID: "t2", Name: "Bench", Objective: "Benchmark it"},      // another task under a taken id
		{ID: "t3", Name: "Release", Objective: "Tag the release"}, // new
	})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(resumed, ",") != "t1" {
		t.Errorf("resumed = %v, want t1", resumed)
	}
	got, _ := ix.Task("t1")
	if got.File != t1.File || got.Status != StatusPending {
		t.Errorf("t1 = %+v, want its own file, pending", got)
	}
	if b, _ := os.ReadFile(path); !strings.Contains(string(b), "The lexer is done") || !strings.Contains(string(b), "status: pending") {
		t.Errorf("t1's file lost its log or status:\n%s", b)
	}
	old, ok := ix.Task("t2-earlier")
	if !ok || old.Objective != "Document it" {
		t.Errorf("the displaced t2 = %+v, %v", old, ok)
	}
	t2, _ := ix.Task("t2")
	t3, _ := ix.Task("t3")
	if t2.Objective != "Benchmark it" || !strings.HasPrefix(t2.File, "task-003-") || !strings.HasPrefix(t3.File, "task-004-") {
		t.Errorf("new tasks = %+v %+v", t2, t3)
	}
	if ix.Project.Request != "second" || strings.Join(ix.Project.Domain, ",") != "go" {
		t.Errorf("project = %+v", ix.Project)
	}
	added, err := j.AddTasks([]Task{{ID: "fix-1", Name: "Fix", Objective: "Fix it"}, {ID: "t3", Name: "x", Objective: "y"}})
	if err != nil || strings.Join(added, ",") != "fix-1" {
		t.Fatalf("AddTasks = %v, %v", added, err)
	}
	ix, _ = j.Load()
	if fx, _ := ix.Task("fix-1"); !strings.HasPrefix(fx.File, "task-005-") {
		t.Errorf("fix-1 = %+v", fx)
	}
	if err := j.SetStatus("t3", StatusSkipped); err != nil {
		t.Fatal(err)
	}
}
