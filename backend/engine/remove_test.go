package engine

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/baton-app/baton/backend/store"
	"github.com/baton-app/baton/backend/template"
)

func TestApplyRemove(t *testing.T) {
	t.Parallel()
	proposed := func() []store.Task {
		return []store.Task{
			{ID: "a", Position: 0, Title: "A", Description: "a", Priority: 5},
			{ID: "b", Position: 1, Title: "B", Description: "b", Priority: 5, Dependencies: []string{"a"}},
			{ID: "c", Position: 2, Title: "C", Description: "c", Priority: 5, Dependencies: []string{"a", "b"}},
			{ID: "d", Position: 3, Title: "D", Description: "d", Priority: 5},
		}
	}
	none := &[]string{}
	tests := []struct {
		name    string
		mods    Modifications
		want    string   // ids left, in order
		problem []string // parts of the refusal
		skipped string   // ids skipped, in order
	}{
		{"a task nothing needs", Modifications{Remove: []string{"d"}}, "a,b,c", nil, ""},
		{"a task and its dependents", Modifications{Remove: []string{"b", "c", "a"}}, "d", nil, ""},
		{"a task whose dependents drop it", Modifications{Remove: []string{"a"},
			Edit: []TaskEdit{{ID: "b", Dependencies: none}, {ID: "c", Dependencies: &[]string{"b"}}}}, "b,c,d", nil, ""},
		{"a task others need", Modifications{Remove: []string{"a"}}, "",
			[]string{"cannot remove a: b, c depend on it; remove them too or change their dependencies"}, ""},
		{"a task one other needs", Modifications{Remove: []string{"b"}}, "",
			[]string{"cannot remove b: c depends on it; remove it too or change its dependencies"}, ""},
		{"a skipped dependent still counts", Modifications{Remove: []string{"b"}, Skip: []string{"c"}}, "",
			[]string{"cannot remove b: c depends on it"}, ""},
		{"a dependent the user adds", Modifications{Remove: []string{"d"},
			Add: []NewTask{{ID: "e", Title: "E", Description: "e", Dependencies: []string{"d"}}}}, "",
			[]string{"cannot remove d: e depends on it"}, ""},
		{"an unknown task", Modifications{Remove: []string{"zz"}}, "", []string{"cannot remove zz: no such task"}, ""},
		{"a task added in the same changes", Modifications{Remove: []string{"e"},
			Add: []NewTask{{ID: "e", Title: "E", Description: "e"}}}, "", []string{"cannot remove e: no such task"}, ""},
		{"the id of a removed task for a new one", Modifications{Remove: []string{"d"},
			Add: []NewTask{{ID: "d", Title: "D2", Description: "d2"}}}, "", []string{"cannot add d: a removed task had that id; choose another"}, ""},
		{"a skip beside a removal, of an added task too", Modifications{Remove: []string{"c"}, Skip: []string{"b", "e"},
			Add: []NewTask{{ID: "e", Title: "E", Description: "e", Dependencies: []string{"d"}}}}, "a,b,d,e", nil, "b,e"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			in := proposed()
			out, err := tc.mods.Apply("r", in)
			if !sameTasks(in, proposed()) {
				t.Errorf("Apply changed its input: %+v", in)
			}
			if tc.problem != nil {
				var tl *TaskListError
				if !errors.As(err, &tl) || !errors.Is(err, ErrInvalidTasks) {
					t.Fatalf("Apply = %v, want a TaskListError", err)
				}
				for _, p := range tc.problem {
					if !strings.Contains(err.Error(), p) {
						t.Errorf("%q does not say %q", err, p)
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var ids []string
			for i, task := range out {
				ids = append(ids, task.ID)
				if task.Position != i {
					t.Errorf("%s has position %d at index %d", task.ID, task.Position, i)
				}
			}
			if strings.Join(ids, ",") != tc.want {
				t.Errorf("tasks left = %v, want %s", ids, tc.want)
			}
			var skipped []string
			for _, task := range out {
				if task.Skipped {
					skipped = append(skipped, task.ID)
				}
			}
			if strings.Join(skipped, ",") != tc.skipped {
				t.Errorf("skipped = %v, want %s", skipped, tc.skipped)
			}
			if err := CheckTasks(out, 0); err != nil {
				t.Errorf("the list left does not check: %v", err)
			}
		})
	}
}

func sameTasks(a, b []store.Task) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].ID != b[i].ID || a[i].Position != b[i].Position || strings.Join(a[i].Dependencies, ",") != strings.Join(b[i].Dependencies, ",") {
			return false
		}
	}
	return true
}

func TestConfirmRemovesTasks(t *testing.T) {
	t.Parallel()
	// Four tasks where the template allows three: skipping keeps the list too
	// long, removing shortens it.
	tasks := plan(planned{"a", 5, nil}, planned{"b", 5, []string{"a"}}, planned{"c", 5, nil}, planned{"d", 5, nil})
	h := newHarness(t, testTemplate(func(tp *template.Template) { tp.Config.MaxTasks = 3; tp.Config.AutoConfirm = false }),
		scripted(tasks, nil), true)
	ctx := context.Background()
	id := h.create()
	if err := h.eng.Start(ctx, id); err != nil {
		t.Fatal(err)
	}
	h.until("confirming", func() bool { return h.status(id) == "confirming" })
	before, _ := h.st.Tasks(ctx, id)

	// A task another one needs is refused, naming the dependent; nothing changes.
	err := h.eng.Confirm(ctx, id, Modifications{Remove: []string{"a"}})
	if !errors.Is(err, ErrInvalidTasks) || !strings.Contains(err.Error(), "cannot remove a: b depends on it") {
		t.Fatalf("Confirm removing a = %v", err)
	}
	if err := h.eng.Confirm(ctx, id, Modifications{Skip: []string{"d"}}); !errors.Is(err, ErrInvalidTasks) {
		t.Fatalf("Confirm skipping d (still four tasks) = %v", err)
	}
	after, _ := h.st.Tasks(ctx, id)
	if len(after) != len(before) || h.status(id) != "confirming" {
		t.Fatalf("a refused confirmation changed the run: %d tasks, %s", len(after), h.status(id))
	}

	// Removing d, and a together with the edit that frees b, is accepted.
	if err := h.eng.Confirm(ctx, id, Modifications{Remove: []string{"d", "a"},
		Edit: []TaskEdit{{ID: "b", Dependencies: &[]string{}}}}); err != nil {
		t.Fatal(err)
	}
	run := h.wait(id)
	if run.Status != "completed" || run.TasksTotal != 2 || run.TasksCompleted != 2 || run.TasksSkipped != 0 {
		t.Fatalf("run = %s, %d of %d completed, %d skipped", run.Status, run.TasksCompleted, run.TasksTotal, run.TasksSkipped)
	}
	stored, _ := h.st.Tasks(ctx, id)
	var ids []string
	for _, task := range stored {
		ids = append(ids, task.ID)
	}
	if strings.Join(ids, ",") != "b,c" {
		t.Errorf("stored tasks = %v, want b,c", ids)
	}
	if ws := h.workers(id); len(ws) != 2 || ws["a"].TaskID != "" || ws["d"].TaskID != "" {
		t.Errorf("workers = %+v", ws)
	}
	if got := h.host.workerStarts(); got["a"] != 0 || got["d"] != 0 || got["b"] != 1 || got["c"] != 1 {
		t.Errorf("worker starts = %v", got)
	}
	// Once confirmed, nothing can be removed.
	if err := h.eng.Confirm(ctx, id, Modifications{Remove: []string{"c"}}); !errors.Is(err, ErrIllegalTransition) {
		t.Errorf("Confirm after the run = %v", err)
	}
}
