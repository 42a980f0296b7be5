package console

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/baton-app/baton/backend/engine"
	"github.com/baton-app/baton/backend/store"
	"github.com/baton-app/baton/backend/template"
)

// maxPlanFile bounds what --plan reads.
const maxPlanFile = 4 << 20

// readPlanFile reads a JSON plan file: {"tasks": [...]} as the planner
// writes it, or the list of tasks alone. Each task has an id and a title;
// description, scope, priority, dependencies and complexity are optional.
func readPlanFile(path string) ([]engine.NewTask, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("the plan file %s cannot be read: %w", path, errors.Unwrap(err))
	}
	if st.Size() > maxPlanFile {
		return nil, fmt.Errorf("the plan file %s is larger than %d MB", path, maxPlanFile>>20)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("the plan file %s cannot be read: %w", path, errors.Unwrap(err))
	}
	var tasks []engine.NewTask
	trimmed := strings.TrimSpace(string(data))
	if strings.HasPrefix(trimmed, "[") {
		err = json.Unmarshal(data, &tasks)
	} else {
		var doc struct {
			Tasks []engine.NewTask `json:"tasks"`
		}
		err = json.Unmarshal(data, &doc)
		tasks = doc.Tasks
	}
	if err != nil {
		return nil, fmt.Errorf("the plan file %s is not a JSON task list ({\"tasks\": [...]}): %v", path, err)
	}
	if len(tasks) == 0 {
		return nil, fmt.Errorf("the plan file %s has no tasks", path)
	}
	return tasks, nil
}

// planModifications turns the proposed tasks into the plan file's: tasks of
// the file whose id was proposed are edited to match it, new ids are added,
// and proposed tasks the file leaves out are removed.
func planModifications(proposed []store.Task, file []engine.NewTask) engine.Modifications {
	var m engine.Modifications
	inFile := map[string]bool{}
	known := map[string]bool{}
	for _, t := range proposed {
		known[t.ID] = true
	}
	for _, n := range file {
		inFile[n.ID] = true
		if !known[n.ID] {
			m.Add = append(m.Add, n)
			continue
		}
		n := n
		prio := n.Priority
		if prio == 0 {
			prio = engine.DefaultPriority
		}
		scope, deps := n.Scope, n.Dependencies
		if scope == nil {
			scope = []string{}
		}
		if deps == nil {
			deps = []string{}
		}
		m.Edit = append(m.Edit, engine.TaskEdit{ID: n.ID, Title: &n.Title, Description: &n.Description, Scope: &scope,
			Priority: &prio, Dependencies: &deps, Complexity: &n.Complexity})
		m.Unskip = append(m.Unskip, n.ID)
	}
	for _, t := range proposed {
		if !inFile[t.ID] {
			m.Remove = append(m.Remove, t.ID)
		}
	}
	return m
}

// planProblems are the reasons the proposed tasks of a run cannot be
// confirmed (none when they can).
func planProblems(snap engine.Snapshot) []string {
	var tmpl template.Template
	_ = json.Unmarshal(snap.Run.Template, &tmpl)
	err := engine.CheckTasks(snap.Tasks, tmpl.Config.MaxTasks)
	var tle *engine.TaskListError
	if errors.As(err, &tle) {
		return tle.Problems
	}
	if err != nil {
		return []string{err.Error()}
	}
	return nil
}
