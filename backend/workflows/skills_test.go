package workflows

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/baton-app/baton/backend/store"
	"github.com/baton-app/baton/backend/template"
)

func TestTaskType(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ mode, text, want string }{
		{"architect", "Build it", "design"},
		{"debug", "", "bugfix"},
		{"", "Fix the crash on start", "bugfix"},
		{"", "Add tests for the parser", "testing"},
		{"", "Update the README", "documentation"},
		{"", "Refactor the store", "refactor"},
		{"", "Add a login page", "implementation"},
		{"code", "Write docs", "documentation"},
	} {
		if got := taskType(tc.mode, tc.text); got != tc.want {
			t.Errorf("taskType(%q, %q) = %q, want %q", tc.mode, tc.text, got, tc.want)
		}
	}
}

// Seed 004's domain weight: the project's domain, read from its files,
// decides between two skills of one category that the task's words match
// alike (a Go module gets Go testing, a Svelte app frontend testing).
func TestProjectDomainDecidesTheSkill(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ file, content, want, not string }{
		{"go.mod", "module example.com/parser\n", "go-testing", "frontend-testing"},
		{"package.json", `{"devDependencies": {"svelte": "^5.0.0", "vitest": "^2.0.0"}}`, "frontend-testing", "go-testing"},
	} {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, tc.file), []byte(tc.content), 0o644); err != nil {
			t.Fatal(err)
		}
		h := newSkillsHook(template.Skills{Enabled: true}, dir, t.TempDir())
		tasks := []store.Task{{ID: "task_001", Title: "Add tests", Description: "Write tests for the parser.",
			Complexity: "low"}}
		note := h.match(tasks)
		if !slices.Contains(tasks[0].Skills, tc.want) || slices.Contains(tasks[0].Skills, tc.not) {
			t.Errorf("%s: skills %v, want %s and not %s", tc.file, tasks[0].Skills, tc.want, tc.not)
		}
		if !strings.Contains(note, "Project domain: ") {
			t.Errorf("%s: the note does not name the domain: %q", tc.file, note)
		}
	}
}
