package console

import (
	"fmt"
	"strings"

	"github.com/baton-app/baton/backend/store"
)

// modelsLine says which model each worker ran with (seed 004 picks it by
// the task's complexity); "" when no worker recorded one.
func modelsLine(tasks []store.Task, byTask map[string]store.Worker) string {
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
