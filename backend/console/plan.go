package console

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/baton-app/baton/backend/view"
)

// maxPlanFile bounds what --plan reads.
const maxPlanFile = 4 << 20

// readPlanFile reads a JSON plan file: {"tasks": [...]} as the planner
// writes it, or the list of tasks alone. Each task has an id and a title;
// description, scope, priority, dependencies and complexity are optional.
func readPlanFile(path string) ([]view.NewTask, error) {
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
	var tasks []view.NewTask
	trimmed := strings.TrimSpace(string(data))
	if strings.HasPrefix(trimmed, "[") {
		err = json.Unmarshal(data, &tasks)
	} else {
		var doc struct {
			Tasks []view.NewTask `json:"tasks"`
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
