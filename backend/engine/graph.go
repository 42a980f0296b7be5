package engine

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/baton-app/baton/backend/protocol"
	"github.com/baton-app/baton/backend/store"
)

// DefaultPriority is given to a task whose planner set none (seed 000: 1–10,
// higher is more important).
const DefaultPriority = 5

// ErrInvalidTasks is returned when a task list cannot be confirmed; the
// TaskListError lists every problem.
var ErrInvalidTasks = errors.New("invalid task list")

// TaskListError lists every problem of a task list, one sentence each.
type TaskListError struct {
	Problems []string
}

func (e *TaskListError) Error() string {
	return "the task list cannot be confirmed: " + strings.Join(e.Problems, "; ")
}

// Unwrap makes errors.Is(err, ErrInvalidTasks) true.
func (e *TaskListError) Unwrap() error { return ErrInvalidTasks }

// tasksFromPlan turns the planner's tasks into stored tasks.
func tasksFromPlan(runID string, list []protocol.Task) []store.Task {
	out := make([]store.Task, 0, len(list))
	for i, t := range list {
		def, _ := json.Marshal(t)
		p := DefaultPriority
		if t.Priority != nil {
			p = *t.Priority
		}
		out = append(out, store.Task{RunID: runID, ID: t.ID, Position: i, Title: t.Title, Description: t.Description,
			Scope: t.Scope, Priority: p, Dependencies: t.Dependencies, Complexity: t.Complexity, Definition: def})
	}
	return out
}

// CheckTasks checks a task list before it is confirmed: at least one task
// to run, at most maxTasks (0: no bound), unique ids that can name a
// session, titles and descriptions present, priorities 1–10, every
// dependency known and no cycle (the problem names the cycle).
func CheckTasks(tasks []store.Task, maxTasks int) error {
	var problems []string
	add := func(format string, a ...any) { problems = append(problems, fmt.Sprintf(format, a...)) }
	runnable := 0
	ids := map[string]bool{}
	for i, t := range tasks {
		name := t.ID
		if name == "" {
			name = fmt.Sprintf("task #%d", i+1)
			add("%s has no id", name)
		} else if ids[t.ID] {
			add("the id %s is used by more than one task", t.ID)
		} else if orig := plannedID(t); t.Skipped && orig != "" && orig != t.ID && strings.HasPrefix(t.ID, orig+"-dup") {
			// A duplicate set aside by setAsideDuplicates: reported until
			// the user removes it, or runs it under its new id.
			add("the id %s is used by more than one task: the later one is set aside as %s; remove it or run it under its own id", orig, t.ID)
		} else if _, err := WorkerSessionID("run", t.ID); err != nil {
			add("the id %q may only hold letters, digits, '-' and single '_'", t.ID)
		}
		ids[t.ID] = true
		if strings.TrimSpace(t.Title) == "" {
			add("%s has no title", name)
		}
		if strings.TrimSpace(t.Description) == "" {
			add("%s has no description", name)
		}
		if t.Priority < 1 || t.Priority > 10 {
			add("%s has priority %d, outside 1 to 10", name, t.Priority)
		}
		if !t.Skipped {
			runnable++
		}
	}
	if runnable == 0 {
		add("there is no task to run")
	}
	if maxTasks > 0 && len(tasks) > maxTasks {
		add("there are %d tasks, more than the template's limit of %d", len(tasks), maxTasks)
	}
	for _, t := range tasks {
		for _, d := range t.Dependencies {
			switch {
			case d == t.ID:
				add("%s depends on itself", t.ID)
			case !ids[d]:
				add("%s depends on %s, which is not in the list", t.ID, d)
			}
		}
	}
	if c := findCycle(tasks); len(c) > 0 {
		add("the dependencies form a cycle: %s", strings.Join(c, " → "))
	}
	if len(problems) > 0 {
		return &TaskListError{Problems: problems}
	}
	return nil
}

// findCycle returns one dependency cycle (first task repeated at the end),
// or nil. Self-dependencies are reported separately.
func findCycle(tasks []store.Task) []string {
	deps := map[string][]string{}
	var order []string
	for _, t := range tasks {
		if _, dup := deps[t.ID]; !dup {
			order = append(order, t.ID)
		}
		deps[t.ID] = t.Dependencies
	}
	const (
		white = iota
		grey
		black
	)
	color := map[string]int{}
	var stack []string
	var found []string
	var visit func(id string) bool
	visit = func(id string) bool {
		color[id] = grey
		stack = append(stack, id)
		for _, d := range deps[id] {
			if d == id {
				continue
			}
			if _, ok := deps[d]; !ok {
				continue
			}
			switch color[d] {
			case grey:
				for i, s := range stack {
					if s == d {
						found = append(append([]string{}, stack[i:]...), d)
						return true
					}
				}
			case white:
				if visit(d) {
					return true
				}
			}
		}
		stack = stack[:len(stack)-1]
		color[id] = black
		return false
	}
	for _, id := range order {
		if color[id] == white && visit(id) {
			return found
		}
	}
	return nil
}

// ParallelGroups groups the tasks to run by depth in the dependency graph:
// group 0 needs nothing, group n needs something of group n-1. It is for
// display; scheduling starts a task as soon as its own dependencies are done.
func ParallelGroups(tasks []store.Task) [][]string {
	byID := map[string]store.Task{}
	for _, t := range tasks {
		byID[t.ID] = t
	}
	depth := map[string]int{}
	var level func(id string, seen map[string]bool) int
	level = func(id string, seen map[string]bool) int {
		if d, ok := depth[id]; ok {
			return d
		}
		if seen[id] {
			return 0
		}
		seen[id] = true
		d := 0
		for _, dep := range byID[id].Dependencies {
			if t, ok := byID[dep]; ok && !t.Skipped {
				if l := level(dep, seen) + 1; l > d {
					d = l
				}
			}
		}
		depth[id] = d
		return d
	}
	var groups [][]string
	for _, t := range tasks {
		if t.Skipped {
			continue
		}
		d := level(t.ID, map[string]bool{})
		for len(groups) <= d {
			groups = append(groups, nil)
		}
		groups[d] = append(groups[d], t.ID)
	}
	for _, g := range groups {
		sort.Strings(g)
	}
	return groups
}

// byPriority orders tasks for starting: higher priority first, ties by id.
func byPriority(tasks []*store.Task) {
	sort.SliceStable(tasks, func(i, j int) bool {
		if tasks[i].Priority != tasks[j].Priority {
			return tasks[i].Priority > tasks[j].Priority
		}
		return tasks[i].ID < tasks[j].ID
	})
}

// Modifications are the user's changes to a proposed task list.
type Modifications struct {
	// Skip lists tasks not to run.
	Skip []string `json:"skip,omitempty"`
	// Unskip lists tasks to run again after all.
	Unskip []string `json:"unskip,omitempty"`
	// Edit changes fields of existing tasks.
	Edit []TaskEdit `json:"edit,omitempty"`
	// Add appends new tasks (priority 0 means the default).
	Add []NewTask `json:"add,omitempty"`
	// Remove deletes proposed tasks from the run. A task that another task
	// still depends on can only go with that dependent, or once an edit in
	// the same modifications drops the dependency.
	Remove []string `json:"remove,omitempty"`
}

// TaskEdit changes the fields that are set.
type TaskEdit struct {
	ID           string    `json:"id"`
	Title        *string   `json:"title,omitempty"`
	Description  *string   `json:"description,omitempty"`
	Scope        *[]string `json:"scope,omitempty"`
	Priority     *int      `json:"priority,omitempty"`
	Dependencies *[]string `json:"dependencies,omitempty"`
	Complexity   *string   `json:"complexity,omitempty"`
}

// NewTask is a task the user adds.
type NewTask struct {
	ID           string   `json:"id"`
	Title        string   `json:"title"`
	Description  string   `json:"description"`
	Scope        []string `json:"scope,omitempty"`
	Priority     int      `json:"priority,omitempty"`
	Dependencies []string `json:"dependencies,omitempty"`
	Complexity   string   `json:"complexity,omitempty"`
}

// Apply returns tasks with the modifications applied; tasks is not changed.
func (m Modifications) Apply(runID string, tasks []store.Task) ([]store.Task, error) {
	out := make([]store.Task, len(tasks))
	copy(out, tasks)
	index := map[string]int{}
	for i, t := range out {
		index[t.ID] = i
	}
	var problems []string
	for _, e := range m.Edit {
		i, ok := index[e.ID]
		if !ok {
			problems = append(problems, fmt.Sprintf("cannot edit %s: no such task", e.ID))
			continue
		}
		t := &out[i]
		if e.Title != nil {
			t.Title = *e.Title
		}
		if e.Description != nil {
			t.Description = *e.Description
		}
		if e.Scope != nil {
			t.Scope = append([]string(nil), (*e.Scope)...)
		}
		if e.Priority != nil {
			t.Priority = *e.Priority
		}
		if e.Dependencies != nil {
			t.Dependencies = append([]string(nil), (*e.Dependencies)...)
		}
		if e.Complexity != nil {
			t.Complexity = *e.Complexity
		}
	}
	for _, n := range m.Add {
		if _, dup := index[n.ID]; dup {
			if slices.Contains(m.Remove, n.ID) {
				problems = append(problems, fmt.Sprintf("cannot add %s: a removed task had that id; choose another", n.ID))
			} else {
				problems = append(problems, fmt.Sprintf("cannot add %s: the id is taken", n.ID))
			}
			continue
		}
		p := n.Priority
		if p == 0 {
			p = DefaultPriority
		}
		index[n.ID] = len(out)
		out = append(out, store.Task{RunID: runID, ID: n.ID, Position: len(out), Title: n.Title,
			Description: n.Description, Scope: n.Scope, Priority: p, Dependencies: n.Dependencies,
			Complexity: n.Complexity})
	}
	// Skips come after the additions, so a task the user adds may be skipped
	// at once.
	for _, id := range m.Skip {
		if i, ok := index[id]; ok {
			out[i].Skipped = true
		} else {
			problems = append(problems, fmt.Sprintf("cannot skip %s: no such task", id))
		}
	}
	for _, id := range m.Unskip {
		if i, ok := index[id]; ok {
			out[i].Skipped = false
		} else {
			problems = append(problems, fmt.Sprintf("cannot unskip %s: no such task", id))
		}
	}
	if len(m.Remove) > 0 {
		var rest []string
		out, rest = remove(out, m.Remove, len(tasks))
		problems = append(problems, rest...)
	}
	if len(problems) > 0 {
		return nil, &TaskListError{Problems: problems}
	}
	return out, nil
}

// remove drops the tasks named by ids and renumbers the positions of the
// rest. Only the first proposed entries of tasks (the list the planner
// proposed) may be removed; naming another task, or one that a remaining
// task still depends on, is a problem.
func remove(tasks []store.Task, ids []string, proposed int) ([]store.Task, []string) {
	var problems []string
	gone := map[string]bool{}
	for _, id := range ids {
		found := false
		for _, t := range tasks[:proposed] {
			if t.ID == id {
				found = true
				break
			}
		}
		if found {
			gone[id] = true
		} else {
			problems = append(problems, fmt.Sprintf("cannot remove %s: no such task", id))
		}
	}
	dependents := map[string][]string{}
	out := make([]store.Task, 0, len(tasks))
	for _, t := range tasks {
		if gone[t.ID] {
			continue
		}
		for _, d := range t.Dependencies {
			if gone[d] && !slices.Contains(dependents[d], t.ID) {
				dependents[d] = append(dependents[d], t.ID)
			}
		}
		t.Position = len(out)
		out = append(out, t)
	}
	for _, id := range ids {
		if ds := dependents[id]; len(ds) > 0 {
			verb := "depends"
			if len(ds) > 1 {
				verb = "depend"
			}
			problems = append(problems, fmt.Sprintf("cannot remove %s: %s %s on it; remove %s too or change %s dependencies",
				id, strings.Join(ds, ", "), verb, plural(len(ds), "it", "them"), plural(len(ds), "its", "their")))
			delete(dependents, id)
		}
	}
	return out, problems
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// plannedID is the id the planner gave a task ("" when unknown).
func plannedID(t store.Task) string {
	var d struct {
		ID string `json:"id"`
	}
	if len(t.Definition) == 0 || json.Unmarshal(t.Definition, &d) != nil {
		return ""
	}
	return d.ID
}

// setAsideDuplicates renames the second and later tasks that share an id to
// "<id>-dupN" and marks them skipped, so the proposed list can be stored and
// shown; the user decides whether they run.
func setAsideDuplicates(tasks []store.Task) []store.Task {
	seen := map[string]bool{}
	for _, t := range tasks {
		seen[t.ID] = false
	}
	out := make([]store.Task, len(tasks))
	used := map[string]bool{}
	for i, t := range tasks {
		if used[t.ID] {
			for n := 2; ; n++ {
				id := fmt.Sprintf("%s-dup%d", t.ID, n)
				if _, taken := seen[id]; !taken && !used[id] {
					t.ID = id
					break
				}
			}
			t.Skipped = true
		}
		used[t.ID] = true
		out[i] = t
	}
	return out
}
