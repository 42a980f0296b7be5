package agent

import (
	"strings"
	"testing"
)

// The aggregation merges only the tasks that completed: the others are
// named as not merged, and every count is worded right.
func TestAggregationMergesOnlyCompletedTasks(t *testing.T) {
	t.Parallel()
	prompt := "## Step 4: aggregation\n### task_001 - Document the (core) package (completed)\nSummary: done\n\n" +
		"### task_002 - Write the index (cancelled)\nNot run: skipped because task_003 failed\n\n" +
		"### task_003 - Document cmd (failed)\nError: boom\nConflict to resolve: docs/x.md written twice\n"
	data, _ := NewMind(Turn{Prompt: prompt}).aggregation()
	summary := data["summary"].(string)
	want := "Merged the outputs of 1 task. Not merged: task_002 (cancelled), task_003 (failed). 1 conflict is left to resolve."
	if summary != want {
		t.Errorf("summary %q, want %q", summary, want)
	}
	if merged := data["merged_output"].(string); merged != "Merged: task_001" || strings.Contains(merged, "task_002") {
		t.Errorf("merged output %q", merged)
	}
}
