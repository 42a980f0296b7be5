package tasklist

import (
	"errors"
	"strings"
	"testing"

	"github.com/baton-app/baton/backend/protocol"
	"github.com/baton-app/baton/backend/store"
)

func TestCheckTasks(t *testing.T) {
	t.Parallel()
	task := func(id string, prio int, deps ...string) store.Task {
		return store.Task{ID: id, Title: "T " + id, Description: "D " + id, Priority: prio, Dependencies: deps}
	}
	tests := []struct {
		name  string
		tasks []store.Task
		max   int
		want  []string // substrings of problems; none means valid
	}{
		{"valid", []store.Task{task("a", 5), task("b", 1, "a")}, 10, nil},
		{"empty", nil, 10, []string{"there is no task to run"}},
		{"all skipped", []store.Task{{ID: "a", Title: "t", Description: "d", Priority: 5, Skipped: true}}, 10, []string{"no task to run"}},
		{"too many", []store.Task{task("a", 5), task("b", 5)}, 1, []string{"2 tasks, more than the template's limit of 1"}},
		{"duplicate", []store.Task{task("a", 5), task("a", 5)}, 10, []string{"the id a is used by more than one task"}},
		{"unknown dep", []store.Task{task("a", 5, "x")}, 10, []string{"a depends on x, which is not in the list"}},
		{"self dep", []store.Task{task("a", 5, "a")}, 10, []string{"a depends on itself"}},
		{"cycle", []store.Task{task("a", 5, "b"), task("b", 5, "c"), task("c", 5, "a"), task("d", 5)}, 10,
			[]string{"cycle: a → b → c → a"}},
		{"priority", []store.Task{task("a", 11)}, 10, []string{"priority 11, outside 1 to 10"}},
		{"no title", []store.Task{{ID: "a", Description: "d", Priority: 5}}, 10, []string{"a has no title"}},
		{"bad id", []store.Task{task("a/b", 5)}, 10, []string{`"a/b" may only hold`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			err := Check(tc.tasks, tc.max)
			if tc.want == nil {
				if err != nil {
					t.Fatalf("Check = %v", err)
				}
				return
			}
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("Check = %v, want ErrInvalid", err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("%q does not say %q", err, w)
				}
			}
		})
	}
}

func TestParallelGroupsAndPriority(t *testing.T) {
	t.Parallel()
	tasks := []store.Task{
		{ID: "d", Priority: 1, Dependencies: []string{"b", "c"}},
		{ID: "a", Priority: 3},
		{ID: "b", Priority: 9, Dependencies: []string{"a"}},
		{ID: "c", Priority: 9},
		{ID: "e", Priority: 9, Skipped: true},
	}
	got := Groups(tasks)
	if len(got) != 3 || strings.Join(got[0], ",") != "a,c" || strings.Join(got[1], ",") != "b" || strings.Join(got[2], ",") != "d" {
		t.Errorf("Groups = %v", got)
	}
	ptrs := []*store.Task{&tasks[0], &tasks[1], &tasks[2], &tasks[3]}
	ByPriority(ptrs)
	var ids []string
	for _, p := range ptrs {
		ids = append(ids, p.ID)
	}
	if strings.Join(ids, ",") != "b,c,a,d" {
		t.Errorf("ByPriority = %v", ids)
	}
}

// The planner's tasks as stored, duplicates set aside for the user, a QA
// issue as a task, and the id rule of sessions.
func TestShapes(t *testing.T) {
	t.Parallel()
	prio := 9
	tasks := FromPlan("r", []protocol.Task{{ID: "a", Title: "A", Description: "a"}, {ID: "a", Title: "A2", Description: "a2", Priority: &prio}})
	if tasks[0].Priority != DefaultPriority || tasks[1].Priority != 9 || tasks[1].Position != 1 || len(tasks[0].Definition) == 0 {
		t.Fatalf("from plan = %+v", tasks)
	}
	aside := SetAsideDuplicates(tasks)
	if aside[1].ID != "a-dup2" || !aside[1].Skipped || aside[0].Skipped {
		t.Fatalf("set aside = %+v", aside)
	}
	var le *Error
	if err := Check(aside, 0); !errors.As(err, &le) || !strings.Contains(err.Error(), "the later one is set aside as a-dup2") {
		t.Errorf("check of a list with a duplicate set aside = %v", err)
	}
	origin := &store.Task{ID: "a", Title: "A", Description: "Write a.", Complexity: "complex", Scope: []string{"a.go"}}
	fix := FromIssue("r", 2, 0, protocol.VerificationIssue{Description: strings.Repeat("word ", 20), Severity: "high", SuggestedFix: "add a test"}, origin)
	if fix.ID != "qa2-fix-01" || fix.Priority != 8 || fix.Complexity != "complex" || strings.Join(fix.Scope, ",") != "a.go" ||
		len([]rune(fix.Title)) != len("Fix: ")+70 || !strings.Contains(fix.Description, "(severity high)\nIt concerns task a: A. Write a.") ||
		!strings.Contains(fix.Description, "Suggested fix: add a test") {
		t.Errorf("from issue = %+v", fix)
	}
	for id, ok := range map[string]bool{"task_001": true, "a-b": true, "a__b": false, "a/b": false, "": false, strings.Repeat("x", 101): false} {
		if ValidID(id) != ok {
			t.Errorf("ValidID(%q) = %v", id, !ok)
		}
	}
}
