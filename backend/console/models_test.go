package console

import (
	"testing"

	"github.com/baton-app/baton/backend/view"
)

func TestModelsLineNamesEachWorkersModel(t *testing.T) {
	tasks := []view.Task{{ID: "task_001"}, {ID: "task_002"}, {ID: "task_003"}}
	byTask := map[string]view.Worker{"task_001": {Model: "claude-opus-4-1"}, "task_003": {Model: "claude-haiku-4-5"}}
	if got, want := modelsLine(tasks, byTask), "Models:  task_001 claude-opus-4-1, task_003 claude-haiku-4-5"; got != want {
		t.Errorf("modelsLine = %q, want %q", got, want)
	}
	if got := modelsLine(tasks, map[string]view.Worker{}); got != "" {
		t.Errorf("modelsLine without models = %q, want none", got)
	}
}
