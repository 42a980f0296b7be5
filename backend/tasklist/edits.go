package tasklist

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/baton-app/baton/backend/protocol"
	"github.com/baton-app/baton/backend/store"
)

// The user's modifications of a proposed task list, before it is confirmed.

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
		if e.Title != nil || e.Description != nil || e.Scope != nil {
			t.Definition = editedDefinition(t.Definition, *t, e.Description != nil || e.Scope != nil)
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
		return nil, &Error{Problems: problems}
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

// editedDefinition is the planner's definition of task t after the user
// edited it: its title, description and scope are the user's, and when the
// user rewrote what the task is about (its description or scope) the
// planner's expected outputs and acceptance criteria, written for the old
// task, are dropped, so Baton never asks a worker for a file the user's task
// does not name.
func editedDefinition(def json.RawMessage, t store.Task, rewritten bool) json.RawMessage {
	if len(def) == 0 {
		return def
	}
	var d protocol.Task
	if json.Unmarshal(def, &d) != nil {
		return nil // not the planner's shape: nothing of it is kept
	}
	d.Title, d.Description, d.Scope = t.Title, t.Description, slices.Clone(t.Scope)
	if rewritten {
		d.ExpectedOutputs, d.OutputArtifacts, d.AcceptanceCriteria = nil, nil, nil
	}
	out, err := json.Marshal(d)
	if err != nil {
		return nil
	}
	return out
}
