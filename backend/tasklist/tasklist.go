// Package tasklist is a run's task list before it runs: the planner's tasks
// as stored (FromPlan) and a QA issue as a remediation task (FromIssue), the
// checks before the list is confirmed (Check: at least one task to run, a
// bounded count, unique ids that can name a session, titles and
// descriptions, priorities 1–10, every dependency known and no cycle, each
// problem one sentence), the duplicates set aside for the user
// (SetAsideDuplicates), the order ready tasks start in (ByPriority) and the
// parallel groups shown to the user (Groups). The user's modifications of a
// proposed list are the engine's (engine.Modifications).
package tasklist

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/baton-app/baton/backend/protocol"
	"github.com/baton-app/baton/backend/store"
)

// DefaultPriority is given to a task whose planner set none (seed 000: 1–10,
// higher is more important).
const DefaultPriority = 5

// ErrInvalid is returned when a task list cannot be confirmed; the Error
// lists every problem.
var ErrInvalid = errors.New("invalid task list")

// Error lists every problem of a task list, one sentence each.
type Error struct {
	Problems []string
}

func (e *Error) Error() string {
	return "the task list cannot be confirmed: " + strings.Join(e.Problems, "; ")
}

// Unwrap makes errors.Is(err, ErrInvalid) true.
func (e *Error) Unwrap() error { return ErrInvalid }

var idPart = regexp.MustCompile(`^[A-Za-z0-9-]+(?:_[A-Za-z0-9-]+)*$`)

// ValidID reports whether id can be part of a session's id: at most 100
// letters, digits, '-' and single '_' between them.
func ValidID(id string) bool { return len(id) <= 100 && idPart.MatchString(id) }

// FromPlan turns the planner's tasks into stored tasks.
func FromPlan(runID string, list []protocol.Task) []store.Task {
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

// FromIssue turns issue i of a failed verification into a task of QA
// round round (seed 004) of run runID; origin is the task the issue is
// about (nil: none).
func FromIssue(runID string, round, i int, is protocol.VerificationIssue, origin *store.Task) store.Task {
	id := fmt.Sprintf("qa%d-fix-%02d", round, i+1)
	desc := strings.TrimSpace(is.Description)
	title := desc
	if r := []rune(desc); len(r) > 70 {
		title = string(r[:67]) + "..."
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Quality assurance found a problem that must be fixed: %s", desc)
	if is.Severity != "" {
		fmt.Fprintf(&b, " (severity %s)", is.Severity)
	}
	if origin != nil {
		fmt.Fprintf(&b, "\nIt concerns task %s: %s. %s", origin.ID, origin.Title, origin.Description)
	}
	if len(is.Files) > 0 {
		fmt.Fprintf(&b, "\nFiles: %s", strings.Join(is.Files, ", "))
	}
	if is.SuggestedFix != "" {
		fmt.Fprintf(&b, "\nSuggested fix: %s", is.SuggestedFix)
	}
	t := store.Task{RunID: runID, ID: id, Title: "Fix: " + title, Description: b.String(), Scope: is.Files,
		Priority: 8, Dependencies: []string{}}
	if origin != nil {
		t.Complexity = origin.Complexity
		if len(t.Scope) == 0 {
			t.Scope = origin.Scope
		}
	}
	return t
}

// Check checks a task list before it is confirmed: at least one task
// to run, at most maxTasks (0: no bound), unique ids that can name a
// session, titles and descriptions present, priorities 1–10, every
// dependency known and no cycle (the problem names the cycle).
func Check(tasks []store.Task, maxTasks int) error {
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
			// A duplicate set aside by SetAsideDuplicates: reported until
			// the user removes it, or runs it under its new id.
			add("the id %s is used by more than one task: the later one is set aside as %s; remove it or run it under its own id", orig, t.ID)
		} else if !ValidID(t.ID) {
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
		return &Error{Problems: problems}
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

// Groups groups the tasks to run by depth in the dependency graph:
// group 0 needs nothing, group n needs something of group n-1. It is for
// display; scheduling starts a task as soon as its own dependencies are done.
func Groups(tasks []store.Task) [][]string {
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

// ByPriority orders tasks for starting: higher priority first, ties by id.
func ByPriority(tasks []*store.Task) {
	sort.SliceStable(tasks, func(i, j int) bool {
		if tasks[i].Priority != tasks[j].Priority {
			return tasks[i].Priority > tasks[j].Priority
		}
		return tasks[i].ID < tasks[j].ID
	})
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

// SetAsideDuplicates renames the second and later tasks that share an id to
// "<id>-dupN" and marks them skipped, so the proposed list can be stored and
// shown; the user decides whether they run.
func SetAsideDuplicates(tasks []store.Task) []store.Task {
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
