package console

import (
	"fmt"
	"strings"

	"github.com/baton-app/baton/backend/view"
)

// modelsLine says which model each worker ran with (seed 004 picks it by
// the task's complexity); "" when no worker recorded one.
func modelsLine(tasks []view.Task, byTask map[string]view.Worker) string {
	var parts []string
	for _, t := range tasks {
		if m := byTask[t.ID].Model; m != "" {
			parts = append(parts, fmt.Sprintf("%s %s", t.ID, m))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return "Models:  " + strings.Join(parts, ", ")
}
